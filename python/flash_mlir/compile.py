"""Compile attention kernel bundles with flash-opt (on the build machine).

A bundle is what ``flash-opt --flash-to-ptx="... bundle-dir=DIR"`` writes for
one kernel: ``NAME.ptx``, ``NAME.<arch>.cubin`` per requested ptxas target and
``NAME.json`` (the launch contract, see docs/runtime.md). Kernels take B, H and
N at run time, so one bundle serves every shape with its element type, head
dimension, causal flag and LSE output.

  python3 -m flash_mlir.compile --out bundles/ --arch sm_80 --cubin-archs sm_80,sm_90 \\
      --dtypes bf16,f16 --head-dims 64,128 --causal both --lse both
"""

import argparse
import dataclasses
import os
import shlex
import subprocess
import sys
from typing import List, Optional

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
DEFAULT_FLASH_OPT = os.path.join(REPO_ROOT, "build", "bin", "flash-opt")


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
    persistent: str = "auto"  # sm_90a persistent grid: auto (the lowering's policy), yes, no
    ping_pong: str = "auto"   # sm_90a consumer ping-pong: auto (the lowering's policy), yes, no

    @property
    def name(self) -> str:
        name = f"flash_fwd_{self.arch}_{self.dtype}_d{self.head_dim}"
        if self.causal:
            name += "_causal"
        if self.lse:
            name += "_lse"
        if self.block_q or self.block_kv or self.warps:
            name += f"_bq{self.block_q}_bkv{self.block_kv}_w{self.warps}"
        if self.persistent != "auto":
            name += "_persistent" if self.persistent == "yes" else "_nonpersistent"
        if self.ping_pong != "auto":
            name += "_pingpong" if self.ping_pong == "yes" else "_nopingpong"
        return name

    def source(self) -> str:
        """A function computing this attention on representative shapes."""
        d = self.head_dim
        t = lambda n: f"tensor<1x1x{n}x{d}x{self.dtype}>"
        attrs = "{causal}" if self.causal else ""
        results = t(1024) + (", tensor<1x1x1024xf32>" if self.lse else "")
        lhs = "%o, %lse" if self.lse else "%o"
        ret = "%o, %lse" if self.lse else "%o"
        return (f"func.func @{self.name}(%q: {t(1024)}, %k: {t(1024)}, %v: {t(1024)}) -> ({results}) {{\n"
                f"  {lhs} = flash.attention %q, %k, %v {attrs} : {t(1024)}, {t(1024)}, {t(1024)} -> {results}\n"
                f"  return {ret} : {results}\n}}\n")


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
    for key, value in (("block-q", spec.block_q), ("block-kv", spec.block_kv), ("warps", spec.warps)):
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
                    help="extra schedules to compile besides the model's, as BQxBKVxWARPS,... "
                         "(e.g. 128x64x4,64x64x4)")
    ap.add_argument("--persistent", default="auto", choices=["auto", "variants"],
                    help="sm_90a: 'auto' compiles the lowering's choice; 'variants' also "
                         "compiles the persistent and non-persistent forms as variants")
    ap.add_argument("--ping-pong", default="auto", choices=["auto", "variants"],
                    help="sm_90a: 'variants' also compiles the forms with and without "
                         "ping-pong between consumer warpgroups (schedules with two or more)")
    ap.add_argument("--flash-opt", default=DEFAULT_FLASH_OPT)
    args = ap.parse_args(argv)
    schedules = [(0, 0, 0)] + [tuple(int(x) for x in s.split("x"))
                               for s in args.schedules.split(",") if s]
    count = 0
    for dtype in args.dtypes.split(","):
        for d in (int(x) for x in args.head_dims.split(",")):
            for causal in _flags(args.causal):
                for lse in _flags(args.lse):
                    for bq, bkv, warps in schedules:
                        forms = [("auto", "auto")]
                        if args.persistent == "variants":
                            forms += [("yes", "auto"), ("no", "auto")]
                        # Ping-pong needs two consumer warpgroups (block_q >= 128).
                        if args.ping_pong == "variants" and (bq == 0 or bq >= 128):
                            forms += [(p, pp) for p, _ in list(forms) for pp in ("yes", "no")]
                        for persistent, ping_pong in forms:
                            spec = KernelSpec(dtype, d, causal, lse, args.arch, bq, bkv, warps,
                                              persistent, ping_pong)
                            path = compile_bundle(spec, args.out, args.flash_opt, args.cubin_archs)
                            print(path)
                            count += 1
    print(f"{count} bundles in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
