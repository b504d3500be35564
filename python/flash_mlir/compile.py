"""Compile attention kernel bundles with flash-opt (on the build machine).

A bundle is what ``flash-opt --flash-to-ptx="... bundle-dir=DIR"`` writes for
one kernel: ``NAME.ptx``, ``NAME.<arch>.cubin`` per requested ptxas target and
``NAME.json`` (the launch contract, see docs/gpu.md). Kernels take B, H and
N at run time, so one bundle serves every shape with its element type, head
dimension, causal flag and LSE output. Where the target model picks a
different schedule for short and long sequences (it counts the work spent on
partial tiles, which the causal diagonal makes large when N is short), one
bundle is compiled per range of lengths: the model is asked (flash-opt
--flash-select-schedule, no code generated) at each length of --seq-lens,
consecutive lengths with the same schedule form a range, and its bundle is
compiled at the range's first length and named ``..._n<first>``. The runtime
library picks, per call, the bundle compiled for the largest length not above
the call's (runtime.KernelLibrary.find).

  python3 -m flash_mlir.compile --out bundles/ --arch sm_80 --cubin-archs sm_80,sm_90 \\
      --dtypes bf16,f16 --head-dims 64,128 --causal both --lse both
"""

import argparse
import dataclasses
import os
import re
import shlex
import subprocess
import sys
from typing import List, Optional, Tuple

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
DEFAULT_FLASH_OPT = os.path.join(REPO_ROOT, "build", "bin", "flash-opt")
# The shape a single bundle is compiled at (kernels take N at run time).
REPRESENTATIVE_SEQ_LEN = 1024
DEFAULT_SEQ_LENS = "512,1024,2048,4096,8192,16384"


@dataclasses.dataclass(frozen=True)
class KernelSpec:
    dtype: str            # "bf16" or "f16"
    head_dim: int
    causal: bool
    lse: bool
    arch: str = "sm_80"
    block_q: int = 0      # 0: chosen by the target model
    block_kv: int = 0
    warps: int = 0
    stages: int = 0       # K/V stages; 0: chosen by the target model
    persistent: str = "auto"  # sm_90a persistent grid: auto (the lowering's policy), yes, no
    ping_pong: str = "auto"   # sm_90a consumer ping-pong: auto (the lowering's policy), yes, no
    seq_len: int = REPRESENTATIVE_SEQ_LEN  # the N of the compiled shape (the model's input)
    range_suffix: bool = False  # one of several per-length bundles: name it _n<seq_len>

    @property
    def name(self) -> str:
        name = f"flash_fwd_{self.arch}_{self.dtype}_d{self.head_dim}"
        if self.causal:
            name += "_causal"
        if self.lse:
            name += "_lse"
        if self.block_q or self.block_kv or self.warps:
            name += f"_bq{self.block_q}_bkv{self.block_kv}_w{self.warps}"
        if self.stages:
            name += f"_s{self.stages}"
        if self.persistent != "auto":
            name += "_persistent" if self.persistent == "yes" else "_nonpersistent"
        if self.ping_pong != "auto":
            name += "_pingpong" if self.ping_pong == "yes" else "_nopingpong"
        if self.range_suffix:
            name += f"_n{self.seq_len}"
        return name

    def source(self) -> str:
        """A function computing this attention on representative shapes."""
        d, n = self.head_dim, self.seq_len
        t = f"tensor<1x1x{n}x{d}x{self.dtype}>"
        attrs = "{causal}" if self.causal else ""
        results = t + (f", tensor<1x1x{n}xf32>" if self.lse else "")
        lhs = "%o, %lse" if self.lse else "%o"
        ret = "%o, %lse" if self.lse else "%o"
        return (f"func.func @{self.name}(%q: {t}, %k: {t}, %v: {t}) -> ({results}) {{\n"
                f"  {lhs} = flash.attention %q, %k, %v {attrs} : {t}, {t}, {t} -> {results}\n"
                f"  return {ret} : {results}\n}}\n")


def model_schedule(spec: KernelSpec, flash_opt: str = DEFAULT_FLASH_OPT) -> str:
    """The schedule the target model picks for spec's shape (no code generated)."""
    cmd = [flash_opt, "-", f"--flash-select-schedule=arch={spec.arch}"]
    proc = subprocess.run(cmd, input=spec.source(), capture_output=True, text=True)
    match = re.search(r"#flash\.schedule<[^>]*>", proc.stdout)
    if proc.returncode != 0 or not match:
        raise RuntimeError(f"flash-opt failed to pick a schedule for {spec.name} at "
                           f"N={spec.seq_len}:\n  {shlex.join(cmd)}\n{proc.stderr}")
    return match.group(0)


def length_ranges(spec: KernelSpec, seq_lens: List[int],
                  flash_opt: str = DEFAULT_FLASH_OPT) -> List[Tuple[int, str]]:
    """[(first length, schedule)] for consecutive lengths with one schedule."""
    ranges: List[Tuple[int, str]] = []
    for n in sorted(seq_lens):
        schedule = model_schedule(dataclasses.replace(spec, seq_len=n), flash_opt)
        if not ranges or ranges[-1][1] != schedule:
            ranges.append((n, schedule))
    return ranges


def model_specs(spec: KernelSpec, seq_lens: List[int],
                flash_opt: str = DEFAULT_FLASH_OPT) -> List[KernelSpec]:
    """The bundles to compile for spec with the model's schedule: one, at the
    representative length, if the model picks one schedule for every length
    of seq_lens; otherwise one per range, each at its first length."""
    ranges = length_ranges(spec, seq_lens, flash_opt)
    if len(ranges) == 1:
        return [spec]
    return [dataclasses.replace(spec, seq_len=n, range_suffix=True) for n, _ in ranges]


def compile_bundle(spec: KernelSpec, out_dir: str, flash_opt: str = DEFAULT_FLASH_OPT,
                   cubin_archs: Optional[str] = None) -> str:
    """Compiles one kernel into out_dir; returns the path of its JSON."""
    os.makedirs(out_dir, exist_ok=True)
    src = os.path.join(out_dir, spec.name + ".mlir")
    with open(src, "w") as f:
        f.write(spec.source())
    options = [f"arch={spec.arch}", f"bundle-dir={out_dir}"]
    if cubin_archs:
        options.append(f"cubin-archs={cubin_archs}")
    for key, value in (("block-q", spec.block_q), ("block-kv", spec.block_kv), ("warps", spec.warps),
                       ("stages", spec.stages)):
        if value:
            options.append(f"{key}={value}")
    if spec.persistent != "auto":
        options.append(f"persistent={spec.persistent}")
    if spec.ping_pong != "auto":
        options.append(f"ping-pong={spec.ping_pong}")
    cmd = [flash_opt, src, f"--flash-to-ptx={' '.join(options)}", "-o", os.devnull]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"flash-opt failed for {spec.name}:\n  {shlex.join(cmd)}\n{proc.stderr}")
    return os.path.join(out_dir, spec.name + ".json")


def _flags(text: str) -> List[bool]:
    return {"both": [False, True], "yes": [True], "no": [False]}[text]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="bundle directory")
    ap.add_argument("--arch", default="sm_80")
    ap.add_argument("--cubin-archs", default=None, help="ptxas targets, e.g. sm_80,sm_90")
    ap.add_argument("--dtypes", default="bf16,f16")
    ap.add_argument("--head-dims", default="64,128,256")
    ap.add_argument("--causal", default="both", choices=["both", "yes", "no"])
    ap.add_argument("--lse", default="both", choices=["both", "yes", "no"])
    ap.add_argument("--schedules", default="",
                    help="extra schedules to compile besides the model's, as BQxBKVxWARPS "
                         "or BQxBKVxWARPSxSTAGES, comma-separated (e.g. 128x64x4,128x32x12x3; "
                         "without STAGES the model picks them)")
    ap.add_argument("--persistent", default="auto", choices=["auto", "variants"],
                    help="sm_90a: 'auto' compiles the lowering's choice; 'variants' also "
                         "compiles the persistent and non-persistent forms as variants")
    ap.add_argument("--ping-pong", default="auto", choices=["auto", "variants"],
                    help="sm_90a: 'variants' also compiles the forms with and without "
                         "ping-pong between consumer warpgroups (schedules with two or more)")
    ap.add_argument("--seq-lens", default=DEFAULT_SEQ_LENS,
                    help="lengths at which the model's schedule is asked; where it changes, "
                         "one bundle per range of lengths is compiled")
    ap.add_argument("--flash-opt", default=DEFAULT_FLASH_OPT)
    args = ap.parse_args(argv)
    try:
        seq_lens = [int(x) for x in args.seq_lens.split(",") if x]
    except ValueError:
        seq_lens = []
    if not seq_lens or min(seq_lens) < 1:
        ap.error(f"--seq-lens must be positive integer lengths, got {args.seq_lens!r}")
    schedules = [(0, 0, 0, 0)]
    for text in (s for s in args.schedules.split(",") if s):
        try:
            parts = [int(x) for x in text.split("x")]
        except ValueError:
            parts = []
        if len(parts) not in (3, 4) or min(parts) < 1:
            ap.error(f"--schedules entries must be BQxBKVxWARPS or BQxBKVxWARPSxSTAGES with "
                     f"positive integers, got {text!r}")
        schedules.append(tuple(parts + [0] * (4 - len(parts))))
    count = 0
    for dtype in args.dtypes.split(","):
        for d in (int(x) for x in args.head_dims.split(",")):
            for causal in _flags(args.causal):
                for lse in _flags(args.lse):
                    for bq, bkv, warps, stages in schedules:
                        forms = [("auto", "auto")]
                        if args.persistent == "variants":
                            forms += [("yes", "auto"), ("no", "auto")]
                        # Ping-pong needs two consumer warpgroups (block_q >= 128).
                        if args.ping_pong == "variants" and (bq == 0 or bq >= 128):
                            forms += [(p, pp) for p, _ in list(forms) for pp in ("yes", "no")]
                        for persistent, ping_pong in forms:
                            spec = KernelSpec(dtype, d, causal, lse, args.arch, bq, bkv, warps,
                                              stages=stages, persistent=persistent,
                                              ping_pong=ping_pong)
                            specs = [spec]
                            if (bq, bkv, warps, stages) == (0, 0, 0, 0):
                                specs = model_specs(spec, seq_lens, args.flash_opt)
                            for one in specs:
                                path = compile_bundle(one, args.out, args.flash_opt,
                                                      args.cubin_archs)
                                print(path)
                                count += 1
    print(f"{count} bundles in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
