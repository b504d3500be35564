"""Compile attention kernel bundles with flash-opt (on the build machine).

A bundle is what ``flash-opt --flash-to-ptx="... bundle-dir=DIR"`` writes for
one kernel: ``NAME.ptx``, ``NAME.<arch>.cubin`` per requested ptxas target and
``NAME.json`` (the launch plan, see docs/launch-plan.md). Kernels take B, H and
N at run time, so one bundle serves every shape with its element type, head
dimension, causal flag and LSE output. Where the kernel differs between short
and long sequences, one bundle is compiled per range of lengths: the target
model may pick a different schedule (it counts the work spent on partial
tiles, which the causal diagonal makes large when N is short), and the
lowering may choose another form for the compiled length (sm_90a: the grouped
order of causal Q tiles). flash-opt reports the kernel's schedule and form
at each length of --seq-lens in one call (``--flash-kernel-forms``, JSON;
no lowering, no PTX), consecutive lengths with the same kernel make a range, and its bundle is
compiled at the range's first length and named ``..._n<first>``. Each plan
records the lengths it is chosen for (``seq-range``: from its first length to
the next range's first length - 1; the first range from 0, the last with no
upper end), and forms other than the model's their ``variant`` name, so that
the runtime selects by these keys, not by file names.

  python3 -m flash_mlir.compile --out bundles/ --arch sm_80 --cubin-archs sm_80,sm_90 \\
      --dtypes bf16,f16 --head-dims 64,128 --causal both --lse both
  python3 -m flash_mlir.compile --out bundles/ --arch sm_80 --cubin-archs sm_80,sm_90 \\
      --ops backward --head-dims 64,128,256    # the gradients' kernels (one plan each)
  python3 -m flash_mlir.compile --out bundles/ --arch sm_90a --ops backward
      # the sm_90a backward, both plans, D 64/128/256: what a kernel does not
      # take yet is skipped with flash-opt's "not supported yet"
"""

import argparse
import dataclasses
import json
import math
import os
import re
import shlex
import subprocess
import sys
from typing import List, Optional, Sequence, Tuple

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, os.pardir))
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
    # sm_90a: rank-4 tensor maps over (D, N, H, B) as the variant "batch_maps"
    # (B×N×H×D views of any batch in one launch; --batch-maps variant).
    batch_maps: bool = False
    # sm_80: the kernel takes q, k, v, o strides as arguments, as the variant
    # "strided" (strided views without a copy; --strides variant).
    strided: bool = False
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
        if self.batch_maps:
            name += "_batch_maps"
        if self.strided:
            name += "_strided"
        if self.range_suffix:
            name += f"_n{self.seq_len}"
        return name

    @property
    def variant(self) -> str:
        """The launch plan's variant: "" for the model's form, else what
        differs from it (the name's parts for the schedule and the forms)."""
        base = dataclasses.replace(self, block_q=0, block_kv=0, warps=0, stages=0,
                                   persistent="auto", ping_pong="auto", batch_maps=False,
                                   strided=False, range_suffix=False)
        return self.name.replace(f"_n{self.seq_len}", "")[len(base.name) + 1:]

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


# Split-KV (Flash-Decoding) bundles: the parts of a sequence at most (the
# grid and the workspaces use fewer when the batch already fills the GPU),
# per arch, as its merge wants them (docs/benchmarks.md; measured on the H200,
# 132 SMs, on GQA 8/1 B = 1 L = 128k, the one row of issue 17's table the cap
# changes):
# - sm_90a, 128: about one part an SM for a call of one or two work units,
#   which its separate merge's split kernel runs (twenty-eighth session:
#   against 256, 0.964-0.975x the time, L = 8k/32k 0.97-1.0x; 96 and 192
#   were slower).
# - sm_80, 256: its fused merge (the last block of a part group merges) is
#   faster with two blocks an SM (twenty-ninth session, the sm_80 plans run
#   on the H200: 128 took 1.07-1.10x the time of 256; every other row within
#   noise). Its split rule aims at two blocks an SM at D = 64 and 128
#   (Target/SplitKV.h, splitKVBlocksPerSM); sm_90a's at one at D = 128; both
#   at one at D = 256, where two blocks do not fit an SM.
DECODE_MAX_SPLITS = {"sm_80": 256, "sm_90a": 128}
# The representative decode shape: GQA 32/8, one query row, 4096 keys (the
# kernels take every size at run time; pages of any size S as well).
DECODE_SHAPE = dict(batch=1, q_heads=32, kv_heads=8, seq_q=1, seq_kv=4096)
DECODE_PAGE_SIZE = 16
# The split-KV schedule's row tile is 16·m rows, m = ceil(G·Nq / 16) up to
# max(256 / D, 1) (Target/SplitKV.h), from the op's packed rows G·Nq: 4 at
# DECODE_SHAPE, a 16-row tile (m = 1). A call of more packed rows takes
# several row tiles of the plan at run time (grid y), so these plans serve
# every G·Nq. `compile --decode-rows R` compiles a plan of R packed rows
# (GQA R/1, Nq = 1) as the variant "rows<R>": its row tile holds up to
# 16·min(ceil(R / 16), max(256 / D, 1)) rows (K/V read once for them), and on
# sm_80 at D = 64 with m = 4 and D = 128 with m = 2 it is the kernel whose
# warp 0 combines the four warps' results alone (the four warps' words do
# not fit in its K/V stages; SM80/DecodeKernel.cpp), which no plan of
# DECODE_SHAPE builds (docs/benchmarks.md, twenty-second session, issue 17).


@dataclasses.dataclass(frozen=True)
class DecodeSpec:
    """A split-KV plan: `paged` (flash.paged_attention) or over a contiguous
    cache (few-row flash.attention)."""
    dtype: str
    head_dim: int
    causal: bool
    lse: bool
    paged: bool
    arch: str = "sm_80"
    # None: the arch's DECODE_MAX_SPLITS.
    max_splits: Optional[int] = None
    # Packed rows (G·Nq) of the compiled op: 0 is DECODE_SHAPE's (the
    # shipped plans); R > 0 compiles GQA R/1 with Nq = 1, the variant
    # "rows<R>" (see DECODE_SHAPE).
    rows: int = 0
    # Paged: the page sizes with a fused split kernel of their own in the
    # plan (--flash-to-ptx's fused-page-sizes): "auto" is the lowering's
    # default for the arch (sm_90a 16,64; sm_80 none), "none" or "16,64".
    fused_page_sizes: str = "auto"

    @property
    def splits(self) -> int:
        """The workspace's capacity the plan is compiled with (max-splits;
        0 on an arch without an entry: the target model's SM count)."""
        if self.max_splits is not None:
            return self.max_splits
        return DECODE_MAX_SPLITS.get(self.arch, 0)

    @property
    def kind(self) -> str:
        return "paged" if self.paged else "split_kv"

    @property
    def variant(self) -> str:
        return f"rows{self.rows}" if self.rows else ""

    @property
    def name(self) -> str:
        name = f"flash_decode_{'paged' if self.paged else 'split'}_{self.arch}_{self.dtype}_d{self.head_dim}"
        if self.causal:
            name += "_causal"
        if self.lse:
            name += "_lse"
        if self.rows:
            name += f"_rows{self.rows}"
        return name

    def source(self) -> str:
        """The op this plan computes at the representative shape: a one-row
        flash.attention over a contiguous cache, or flash.paged_attention
        (the kernels take every size at run time, pages of any size S as
        well). --flash-to-ptx schedules it (the split-KV kernels' tiles),
        tiles it in the split-KV form and lowers that to the decode kernel."""
        s = DECODE_SHAPE
        if self.rows:
            s = dict(s, q_heads=self.rows, kv_heads=1, seq_q=1)
        b, hq, hkv, nq, nk = s["batch"], s["q_heads"], s["kv_heads"], s["seq_q"], s["seq_kv"]
        d, t = self.head_dim, self.dtype
        page = DECODE_PAGE_SIZE
        pages = nk // page
        q = f"tensor<{b}x{hq}x{nq}x{d}x{t}>"
        lse = f"tensor<{b}x{hq}x{nq}xf32>"
        results = f"{q}, {lse}" if self.lse else q
        lhs = "%o, %lse" if self.lse else "%o"
        attrs = "{causal}" if self.causal else ""
        if self.paged:
            cache = f"tensor<{b * pages}x{page}x{hkv}x{d}x{t}>"
            table, lens = f"tensor<{b}x{pages}xi32>", f"tensor<{b}xi32>"
            args = f"%q: {q}, %k: {cache}, %v: {cache}, %table: {table}, %lens: {lens}"
            op = (f"flash.paged_attention %q, %k, %v, %table, %lens {attrs} : "
                  f"{q}, {cache}, {cache}, {table}, {lens} -> {results}")
        else:
            cache = f"tensor<{b}x{hkv}x{nk}x{d}x{t}>"
            args = f"%q: {q}, %k: {cache}, %v: {cache}"
            op = f"flash.attention %q, %k, %v {attrs} : {q}, {cache}, {cache} -> {results}"
        return (f"func.func @{self.name}({args}) -> ({results}) {{\n"
                f"  {lhs} = {op}\n"
                f"  return {lhs} : {results}\n}}\n")


def compile_decode_bundle(spec: DecodeSpec, out_dir: str, flash_opt: str = DEFAULT_FLASH_OPT,
                          cubin_archs: Optional[str] = None) -> str:
    """Compiles one split-KV plan (the split kernel, which merges the parts
    too) from its op into out_dir; returns the path of its JSON."""
    os.makedirs(out_dir, exist_ok=True)
    src = os.path.join(out_dir, spec.name + ".mlir")
    with open(src, "w") as f:
        f.write(spec.source())
    options = [f"arch={spec.arch}", f"bundle-dir={out_dir}", f"max-splits={spec.splits}"]
    if cubin_archs:
        options.append(f"cubin-archs={cubin_archs}")
    if spec.variant:
        options.append(f"variant={spec.variant}")
    if spec.paged and spec.fused_page_sizes != "auto":
        options.append(f"fused-page-sizes={spec.fused_page_sizes}")
    cmd = [flash_opt, src, f"--flash-to-ptx={' '.join(options)}", "-o", os.devnull]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        _raise_refusal(proc.stderr, src)
        raise RuntimeError(f"flash-opt failed for {spec.name}:\n  {shlex.join(cmd)}\n{proc.stderr}")
    path = os.path.join(out_dir, spec.name + ".json")
    with open(path) as f:
        op = json.load(f)["op"]
    if op != ("paged_attention" if spec.paged else "attention_split_kv"):
        # A flash.attention of more packed rows than a split-KV row tile
        # takes (--decode-rows) gets the forward schedule: not a decode plan.
        for name in os.listdir(out_dir):
            if name.startswith(spec.name + "."):
                os.remove(os.path.join(out_dir, name))
        raise NotSupportedYet(f"not supported yet: a split-KV plan of {spec.rows} packed rows "
                              f"over a contiguous cache on {spec.arch} (flash.attention of "
                              f"that many rows takes the forward form)")
    return path


class NotSupportedYet(RuntimeError):
    """flash-opt refused a kernel with a "not supported yet" diagnostic (a
    valid request the lowering does not take yet); the message is that
    diagnostic."""


def _int_list(text: str) -> List[int]:
    """The integers of a comma-separated option; [] if any entry is not one."""
    try:
        return [int(x) for x in text.split(",") if x]
    except ValueError:
        return []


def _raise_refusal(stderr: str, src: str) -> None:
    """NotSupportedYet (and the source removed) where flash-opt's error is a
    "not supported yet" diagnostic; otherwise nothing."""
    refusal = re.search(r"error: (?:'[\w.]+' op )?(not supported yet: .*)", stderr)
    if refusal:
        os.remove(src)
        raise NotSupportedYet(refusal.group(1))


@dataclasses.dataclass(frozen=True)
class BackwardSpec:
    """One backward bundle: the three kernels of flash.attention_backward's
    gradients (preprocess, main, convert or dQ) in one launch plan."""
    dtype: str            # "bf16" or "f16"
    head_dim: int
    causal: bool
    deterministic: bool = False
    arch: str = "sm_80"
    warps: int = 0        # the main kernel's warps, each on 16 K/V rows; 0: the default
    seq_len: int = REPRESENTATIVE_SEQ_LEN
    # Bytes of shared memory a block may opt in to on the devices the plan is
    # for; 0: the target model's (sm_80: an A100's 163 KB). A plan for more
    # (e.g. SHARED_MEMORY_H100, the H100/H200's, where sm_80 kernels run
    # through their sm_90 cubin) is of the same key and variant: the runtime
    # chooses it on devices that have the memory (flash_library_select).
    shared_memory: int = 0
    # sm_90a: rank-4 tensor maps over (D, N, H, B) as the variant "batch_maps"
    # (--batch-maps variant; not for the deterministic plan).
    batch_maps: bool = False
    # sm_80: the main and dQ kernels take the strides of q, k, v, dO, dK, dV
    # and dQ as arguments, as the variant "strided" ("deterministic_strided"
    # for the deterministic plan; --strides variant).
    strided: bool = False

    @property
    def default_warps(self) -> int:
        """sm_90a: the one schedule its main kernel takes (a producer and two
        consumer warpgroups, SM90/BackwardKernel.cpp). sm_80, measured on the
        H200 (bf16, D=128, N=8k; docs/benchmarks.md): with dQ through
        atomics, 8 warps (128 keys a block, half the atomics per FLOP) took
        12.6 ms where 4 took 17.9; the deterministic plan's main kernel has no
        atomics and 4 warps were as fast (6.4 against 6.6 ms)."""
        if self.arch == "sm_90a":
            return 12
        return 4 if self.deterministic else 8

    @property
    def block_kv(self) -> int:
        """Keys a main-kernel block owns: 64 per consumer warpgroup on sm_90a,
        16 per warp on sm_80, 16 per two warps at D=256 (one computes their
        Sᵀ, the other dPᵀ; SM80/BackwardKernel.cpp)."""
        if self.arch == "sm_90a":
            return 128
        return (8 if self.head_dim == 256 else 16) * self.main_warps

    @property
    def block_q(self) -> int:
        """Rows of the Q tiles the main kernel visits where the warps are
        asked for (the deterministic plan, --backward-warps) or flash-tile
        does not take the op: 64; 32 at D=256 on sm_80, where Q and dO
        double-buffered beside K and V of 64 keys then take 131,072 bytes of
        shared memory (147,968 with the kernel's exchange tiles; 64 rows:
        197 KB, beyond an A100's 163 KB). The target model's own choice for
        the atomic plan at D=256 is 64 rows with one stage."""
        return 32 if self.arch == "sm_80" and self.head_dim == 256 else 64

    @property
    def main_warps(self) -> int:
        return self.warps or self.default_warps

    @property
    def name(self) -> str:
        name = f"flash_bwd_{self.arch}_{self.dtype}_d{self.head_dim}"
        if self.causal:
            name += "_causal"
        if self.deterministic:
            name += "_deterministic"
        if self.main_warps != self.default_warps:
            name += f"_w{self.main_warps}"
        if self.shared_memory:
            name += f"_smem{self.shared_memory // 1024}k" if self.shared_memory % 1024 == 0 \
                else f"_smem{self.shared_memory}"
        if self.batch_maps:
            name += "_batch_maps"
        if self.strided:
            name += "_strided"
        return name

    @property
    def variant(self) -> str:
        """The deterministic kernels are a variant of the key (the plan says
        so itself); other warp counts are variants by name."""
        parts = (["deterministic"] if self.deterministic else []) + \
                ([f"w{self.main_warps}"] if self.main_warps != self.default_warps else []) + \
                (["batch_maps"] if self.batch_maps else []) + \
                (["strided"] if self.strided else [])
        return "_".join(parts)

    def op_source(self) -> str:
        """flash.attention_backward at a representative shape (what
        --flash-to-ptx schedules and tiles where flash-tile knows the op)."""
        d, n, t = self.head_dim, self.seq_len, self.dtype
        x = f"tensor<1x1x{n}x{d}x{t}>"
        lse = f"tensor<1x1x{n}xf32>"
        attrs = ", ".join(a for a, on in (("causal", self.causal),
                                          ("deterministic", self.deterministic)) if on)
        return (f"func.func @{self.name}(%q: {x}, %k: {x}, %v: {x}, %o: {x}, %do: {x}, "
                f"%lse: {lse}) -> ({x}, {x}, {x}) {{\n"
                f"  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse "
                f"{{{attrs}}} : {x}, {x}, {x}, {x}, {x}, {lse} -> {x}, {x}, {x}\n"
                f"  return %dq, %dk, %dv : {x}, {x}, {x}\n}}\n")

    def source(self) -> str:
        """The backward's tiled form (L1) at a representative shape, for a
        flash-opt whose flash-tile does not take flash.attention_backward yet:
        the loops in the shape flash-tile gives them, with the #flash.kernel
        descriptor, the only thing the GPU lowering reads; the loop bodies
        are empty."""
        d, n, t = self.head_dim, self.seq_len, self.dtype
        x = f"tensor<1x1x{n}x{d}x{t}>"
        lse = f"tensor<1x1x{n}xf32>"
        block_q, block_kv = self.block_q, self.block_kv
        desc = (f"#flash.kernel<kind = backward, element_type = {t}, batch = 1, q_heads = 1, "
                f"kv_heads = 1, seq_q = {n}, seq_kv = {n}, head_dim = {d}, value_dim = {d}, "
                f"causal = {'true' if self.causal else 'false'}, lse = false, "
                f"scale = {1.0 / math.sqrt(d):e} : f32, schedule = #flash.schedule<arch = "
                f"\"{self.arch}\", block_q = {block_q}, block_kv = {block_kv}, stages = 2, "
                f"warps = {self.main_warps}>"
                f"{', deterministic = true' if self.deterministic else ''}>")
        return (f"func.func @{self.name}(%q: {x}, %k: {x}, %v: {x}, %o: {x}, %do: {x}, "
                f"%lse: {lse}) -> ({x}, {x}, {x}) {{\n"
                f"  %d0 = tensor.empty() : {lse}\n"
                f"  %delta = scf.forall (%b, %h) in (1, 1) shared_outs(%acc = %d0) -> ({lse}) {{\n"
                f"  }} {{flash.stage = \"preprocess\"}}\n"
                f"  %e = tensor.empty() : {x}\n"
                f"  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 1, {-(-n // block_kv)}) "
                f"shared_outs(%a = %e, %c = %e, %f = %e) -> ({x}, {x}, {x}) {{\n"
                f"  }} {{flash.kernel = {desc}}}\n"
                f"  return %dq, %dk, %dv : {x}, {x}, {x}\n}}\n")


def compile_backward_bundle(spec: BackwardSpec, out_dir: str,
                            flash_opt: str = DEFAULT_FLASH_OPT,
                            cubin_archs: Optional[str] = None,
                            extra_options: Sequence[str] = ()) -> str:
    """Compiles one backward bundle (its three kernels, one plan) into
    out_dir; returns the path of its JSON. Kernels take B, H, N at run
    time: one bundle serves every length. extra_options: more
    --flash-to-ptx options (e.g. batch-maps=true)."""
    os.makedirs(out_dir, exist_ok=True)
    options = [f"arch={spec.arch}", f"bundle-dir={out_dir}", *extra_options]
    if cubin_archs:
        options.append(f"cubin-archs={cubin_archs}")
    if spec.variant:
        options.append(f"variant={spec.variant}")
    if spec.shared_memory:
        options.append(f"shared-memory-per-block={spec.shared_memory}")
    if spec.batch_maps:
        options.append("batch-maps=true")
    if spec.strided:
        options.append("strides=true")
    # The op through the whole pipeline: the target model's schedule (sm_80:
    # 8 warps, 128 keys a block at D 64 and 128, the atomic plan's default;
    # sm_90a: 12 warps, 128×128 at D = 64 (64×128 for the deterministic
    # plan), 64×128 at D = 128, 64×64 at D = 256), or the warps asked for and
    # sm_80's deterministic plan's 4 (measured, see
    # BackwardSpec.default_warps); a flash-opt whose flash-tile does not take
    # the op yet gets the backward's L1 written here (64-row Q tiles).
    warps = spec.warps or (spec.default_warps
                           if spec.deterministic and spec.arch == "sm_80" else 0)
    # (Two stages with the tiles asked for: the model's own stages belong to
    # its tiles, one at D = 256's 64×64 on sm_80.)
    overrides = ([f"warps={warps}", f"block-kv={spec.block_kv}", f"block-q={spec.block_q}",
                  "stages=2"] if warps else [])
    attempts = [(spec.op_source(), options + overrides), (spec.source(), options)]
    src = os.path.join(out_dir, spec.name + ".mlir")
    for attempt, (text, pipeline_options) in enumerate(attempts):
        with open(src, "w") as f:
            f.write(text)
        cmd = [flash_opt, src, f"--flash-to-ptx={' '.join(pipeline_options)}", "-o", os.devnull]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode == 0:
            return os.path.join(out_dir, spec.name + ".json")
        unknown_op = "custom op 'flash.attention_backward' is unknown" in proc.stderr
        if attempt > 0 or not unknown_op:
            break
    _raise_refusal(proc.stderr, src)
    raise RuntimeError(f"flash-opt failed for {spec.name}:\n  {shlex.join(cmd)}\n{proc.stderr}")


# The shared memory one block may opt in to on an H100/H200 (and a B200):
# 227 KB; an A100 has 163 KB, the sm_80 target model's.
SHARED_MEMORY_H100 = 232448


def default_shared_memory_budgets(arch: str) -> List[int]:
    """The budgets (bytes) of the backward plans compiled beside the model's
    own: on sm_80, the H100/H200's 227 KB, which the sm_80 kernels meet there
    through their sm_90 cubin (at D = 256 the model then takes 64-row Q tiles
    with two stages, 230,400 bytes; docs/benchmarks.md, seventeenth session).
    A budget plan is kept only where it takes more shared memory than the
    model's (compile_backward_budgets)."""
    return [SHARED_MEMORY_H100] if arch == "sm_80" else []


def plan_shared_memory(json_path: str) -> int:
    """The most dynamic shared memory any kernel of a launch plan takes (what
    the runtime compares with the device's)."""
    with open(json_path) as f:
        plan = json.load(f)
    return max((k.get("dynamic_shared_memory", 0) for k in plan.get("kernels", [])), default=0)


def remove_bundle(json_path: str) -> None:
    """Deletes a bundle's plan, its kernels' PTX and cubins and its source."""
    directory = os.path.dirname(json_path)
    with open(json_path) as f:
        plan = json.load(f)
    files = [os.path.basename(json_path), os.path.basename(json_path)[:-5] + ".mlir"]
    for kernel in plan.get("kernels", []):
        kfiles = kernel.get("files", {})
        files += [kfiles.get("ptx", "")] + [c.get("file", "") for c in
                                            kfiles.get("cubins", {}).values()]
    for name in files:
        path = os.path.join(directory, name)
        if name and os.path.exists(path):
            os.remove(path)


def backward_model_schedule(spec: BackwardSpec,
                            flash_opt: str = DEFAULT_FLASH_OPT) -> Optional[str]:
    """The schedule the target model picks for spec's op with spec's shared
    memory (no code generated); None where flash-opt cannot say (one
    without flash.attention_backward or the shared-memory-per-block option,
    e.g. an older build given with --flash-opt)."""
    options = f"arch={spec.arch}" + (f" shared-memory-per-block={spec.shared_memory}"
                                     if spec.shared_memory else "")
    cmd = [flash_opt, "-", f"--flash-select-schedule={options}"]
    proc = subprocess.run(cmd, input=spec.op_source(), capture_output=True, text=True)
    match = re.search(r"#flash\.schedule<[^>]*>", proc.stdout)
    return match.group(0) if proc.returncode == 0 and match else None


def compile_backward_budgets(spec: BackwardSpec, budgets: Sequence[int], out_dir: str,
                             flash_opt: str = DEFAULT_FLASH_OPT,
                             cubin_archs: Optional[str] = None,
                             extra_options: Sequence[str] = ()) -> List[str]:
    """The key's plans for devices with more shared memory than the target
    model's: spec compiled with each budget where the model's schedule
    differs from its own (asked of flash-opt first, no code generated), kept
    where it takes more shared memory than the model's plan (spec's JSON,
    already in out_dir) and the budgets kept before it; the others removed.
    Plans whose schedule is fixed (the deterministic sm_80 plan, other warp
    counts: every field given) get none. Returns the kept plans' JSON
    paths."""
    if spec.warps or (spec.deterministic and spec.arch == "sm_80"):
        return []
    kept: List[str] = []
    seen = backward_model_schedule(spec, flash_opt)
    if seen is None:
        return []
    most = None
    for budget in sorted(budgets):
        one = dataclasses.replace(spec, shared_memory=budget)
        schedule = backward_model_schedule(one, flash_opt)
        if schedule is None or schedule == seen:
            continue
        if most is None:
            most = plan_shared_memory(os.path.join(out_dir, spec.name + ".json"))
        try:
            path = compile_backward_bundle(one, out_dir, flash_opt, cubin_archs, extra_options)
        except NotSupportedYet:
            continue
        if plan_shared_memory(path) > most:
            kept.append(path)
            most = plan_shared_memory(path)
            seen = schedule
        else:
            remove_bundle(path)
    return kept


def model_schedule(spec: KernelSpec, flash_opt: str = DEFAULT_FLASH_OPT) -> str:
    """The schedule the target model picks for spec's shape (no code generated)."""
    cmd = [flash_opt, "-", f"--flash-select-schedule=arch={spec.arch}"]
    proc = subprocess.run(cmd, input=spec.source(), capture_output=True, text=True)
    match = re.search(r"#flash\.schedule<[^>]*>", proc.stdout)
    if proc.returncode != 0 or not match:
        raise RuntimeError(f"flash-opt failed to pick a schedule for {spec.name} at "
                           f"N={spec.seq_len}:\n  {shlex.join(cmd)}\n{proc.stderr}")
    return match.group(0)


def _lowering_options(spec: KernelSpec) -> List[str]:
    options = []
    if spec.persistent != "auto":
        options.append(f"persistent={spec.persistent}")
    if spec.ping_pong != "auto":
        options.append(f"ping-pong={spec.ping_pong}")
    return options


def kernel_forms(spec: KernelSpec, seq_lens: List[int],
                 flash_opt: str = DEFAULT_FLASH_OPT) -> dict:
    """flash-opt's report of spec's kernel at each length of seq_lens: the
    target model's schedule and the arch policy's form (flash-kernel-forms,
    one call, JSON; no lowering, no PTX)."""
    lengths = ",".join(str(n) for n in sorted(seq_lens))
    options = " ".join([f"arch={spec.arch}", f"lengths={lengths}"] + _lowering_options(spec))
    cmd = [flash_opt, "-", f"--flash-kernel-forms={options}", "-o", os.devnull]
    proc = subprocess.run(cmd, input=spec.source(), capture_output=True, text=True)
    try:
        report = json.loads(proc.stdout) if proc.returncode == 0 else None
    except json.JSONDecodeError:
        report = None
    if not report or len(report.get("kernels", [])) != 1:
        raise RuntimeError(f"flash-opt failed to choose the kernel of {spec.name}:\n"
                           f"  {shlex.join(cmd)}\n{proc.stderr}")
    return report


def length_ranges(spec: KernelSpec, seq_lens: List[int],
                  flash_opt: str = DEFAULT_FLASH_OPT) -> List[Tuple[int, str]]:
    """[(first length, kernel form)] for consecutive lengths of seq_lens with
    one kernel (its schedule and form), as flash-kernel-forms reports them."""
    ranges = kernel_forms(spec, seq_lens, flash_opt)["kernels"][0]["ranges"]
    return [(r["min_seq_len"], f'{r["schedule"]} {r["form"]}'.strip()) for r in ranges]


def kernel_form(spec: KernelSpec, flash_opt: str = DEFAULT_FLASH_OPT) -> str:
    """The kernel for spec's length (its schedule and form), without its name
    or shape."""
    return length_ranges(spec, [spec.seq_len], flash_opt)[0][1]


def model_specs(spec: KernelSpec, seq_lens: List[int],
                flash_opt: str = DEFAULT_FLASH_OPT) -> List[KernelSpec]:
    """The bundles to compile for spec with the model's schedule: one, at the
    representative length, if the kernel has one form at every length of
    seq_lens; otherwise one per range, each at its first length."""
    ranges = length_ranges(spec, seq_lens, flash_opt)
    if len(ranges) == 1:
        return [spec]
    return [dataclasses.replace(spec, seq_len=n, range_suffix=True) for n, _ in ranges]


def seq_ranges(specs: List[KernelSpec]) -> List[Tuple[int, Optional[int]]]:
    """The lengths each of one key's bundles (by first length) is chosen for:
    the first from 0, each up to the next one's first length - 1, the last
    with no upper end."""
    starts = [s.seq_len for s in specs]
    return [(0 if i == 0 else n, starts[i + 1] - 1 if i + 1 < len(starts) else None)
            for i, n in enumerate(starts)]


def compile_bundle(spec: KernelSpec, out_dir: str, flash_opt: str = DEFAULT_FLASH_OPT,
                   cubin_archs: Optional[str] = None,
                   seq_range: Optional[Tuple[int, Optional[int]]] = None,
                   extra_options: Sequence[str] = ()) -> str:
    """Compiles one kernel into out_dir; returns the path of its JSON.
    seq_range: the lengths its launch plan is chosen for (default: all);
    extra_options: more --flash-to-ptx options (e.g. batch-maps=true)."""
    os.makedirs(out_dir, exist_ok=True)
    src = os.path.join(out_dir, spec.name + ".mlir")
    with open(src, "w") as f:
        f.write(spec.source())
    options = [f"arch={spec.arch}", f"bundle-dir={out_dir}"]
    if cubin_archs:
        options.append(f"cubin-archs={cubin_archs}")
    if seq_range is not None:
        low, high = seq_range
        options.append(f"seq-range={low}:{'' if high is None else high}")
    if spec.variant:
        options.append(f"variant={spec.variant}")
    for key, value in (("block-q", spec.block_q), ("block-kv", spec.block_kv), ("warps", spec.warps),
                       ("stages", spec.stages)):
        if value:
            options.append(f"{key}={value}")
    options += _lowering_options(spec)
    if spec.batch_maps:
        options.append("batch-maps=true")
    if spec.strided:
        options.append("strides=true")
    options += extra_options
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
                    help="lengths at which the kernel's form (the model's schedule, the "
                         "lowering's choices) is asked; where it changes, one bundle per "
                         "range of lengths is compiled")
    ap.add_argument("--ops", default="forward,split_kv,paged",
                    help="which plans: forward (flash.attention), split_kv (few-row "
                         "attention over a contiguous cache), paged (flash.paged_attention), "
                         "backward (flash.attention_backward's gradients: three kernels per "
                         "plan; sm_80 and sm_90a: D 64, 128 and 256; what a kernel does not "
                         "take yet is skipped and reported); comma-separated")
    ap.add_argument("--decode-rows", default="0",
                    help="split_kv and paged: the packed rows (G·Nq) of the op each plan is "
                         "compiled from, comma-separated; 0 (default) is the shipped plans' "
                         "(GQA 32/8, Nq = 1: a 16-row tile); R > 0 compiles GQA R/1 as the "
                         "variant 'rows<R>' (a row tile of 16·min(ceil(R/16), 256/D) rows; "
                         "sm_80 at D = 64, R > 48 and D = 128, R > 16: warp 0 combines the "
                         "warps alone), which the runtime takes by default only where a key "
                         "has no other plan")
    ap.add_argument("--fused-page-sizes", default="auto",
                    help="paged: the page sizes S for which each plan carries a fused split "
                         "kernel with S a constant (`<kernel>_s<S>`, run instead of the one for "
                         "any S on calls of that S): auto (default: the lowering's choice for "
                         "the arch, sm_90a 16,64, sm_80 none), none, or S,S,...")
    ap.add_argument("--deterministic", default="both", choices=["both", "yes", "no"],
                    help="backward: the plan with f32 atomics (sm_80) or bulk f32 "
                         "reductions (sm_90a) for dQ (no), the bitwise "
                         "repeatable one (yes, a variant named 'deterministic': sm_80's dQ "
                         "kernel, sm_90a's reductions ordered by semaphores), or both")
    ap.add_argument("--backward-warps", default="0",
                    help="backward: warps of the main kernel (sm_80: each owns 16 K/V "
                         "rows; sm_90a takes 12 only), comma-separated; 0 is the default "
                         "plan's (sm_80: 8 with atomics, 4 deterministic), others are "
                         "variants")
    ap.add_argument("--shared-memory", default="auto",
                    help="backward: also compile each key for devices on which a block may "
                         "opt in to these bytes of shared memory (comma-separated), keeping a "
                         "plan only where it takes more than the model's own; the runtime "
                         "chooses by the device's opt-in shared memory. auto: sm_80's "
                         f"{SHARED_MEMORY_H100} (an H100/H200's 227 KB; a second plan at "
                         "D = 256), none on other archs; none: the model's plans only")
    ap.add_argument("--batch-maps", nargs="?", const="yes", default="no",
                    choices=["no", "yes", "variant"],
                    help="sm_90a forward and backward: rank-4 tensor maps over (D, N, H, B), "
                         "so B×N×H×D views of any batch run in one launch. no (default): "
                         "rank 3 over (D, N, B·H), the shipped kernels; yes (or the bare "
                         "flag): rank 4 in their place; variant: both, the rank-4 plans as "
                         "the variant 'batch_maps' (not for the deterministic backward), "
                         "which the Python runtime picks for views whose B and H do not "
                         "merge and rank 3 otherwise")
    ap.add_argument("--strides", default="no", choices=["no", "variant"],
                    help="sm_80: variant also compiles each forward plan with the kernel "
                         "taking q, k, v, o strides as arguments, and each backward plan "
                         "with its main and dQ kernels taking those of q, k, v, dO, dK, dV "
                         "and dQ, as the variant 'strided' ('deterministic_strided' for "
                         "the deterministic backward), which the Python runtime picks "
                         "only for strided tensors (e.g. B×N×H×D views) the shipped plan "
                         "would copy; no (default): the shipped kernels only, which "
                         "address rows of D elements")
    ap.add_argument("--flash-opt", default=DEFAULT_FLASH_OPT)
    args = ap.parse_args(argv)
    if args.batch_maps != "no" and args.arch != "sm_90a":
        ap.error(f"--batch-maps is for sm_90a (tensor maps), not {args.arch}")
    extra = ["batch-maps=true"] if args.batch_maps == "yes" else []
    # --batch-maps variant: each forward and non-deterministic backward plan
    # also with rank-4 maps, as the variant "batch_maps".
    map_forms = [False, True] if args.batch_maps == "variant" else [False]
    if args.strides != "no" and args.arch != "sm_80":
        ap.error(f"--strides is for sm_80 (sm_90a's tensor maps carry strides: "
                 f"--batch-maps), not {args.arch}")
    # --strides variant: each sm_80 forward and backward plan also with stride
    # arguments.
    stride_forms = [False, True] if args.strides == "variant" else [False]
    ops = [o for o in args.ops.split(",") if o]
    if not ops or any(o not in ("forward", "split_kv", "paged", "backward") for o in ops):
        ap.error(f"--ops takes forward, split_kv, paged and backward, got {args.ops!r}")
    seq_lens = _int_list(args.seq_lens)
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
    if args.shared_memory == "auto":
        budgets = default_shared_memory_budgets(args.arch)
    elif args.shared_memory == "none":
        budgets = []
    else:
        budgets = _int_list(args.shared_memory)
        if not budgets or min(budgets) < 1:
            ap.error(f"--shared-memory takes auto, none or positive byte counts, "
                     f"got {args.shared_memory!r}")
    decode_rows = _int_list(args.decode_rows)
    if not decode_rows or min(decode_rows) < 0:
        ap.error(f"--decode-rows takes packed row counts (0: the default plans), "
                 f"got {args.decode_rows!r}")
    if args.fused_page_sizes not in ("auto", "none"):
        fused = _int_list(args.fused_page_sizes)
        if not fused or min(fused) < 1:
            ap.error(f"--fused-page-sizes takes auto, none or page sizes (slots, at least 1), "
                     f"got {args.fused_page_sizes!r}")
    count = skipped = 0
    if "backward" in ops:
        for dtype in args.dtypes.split(","):
            for d in (int(x) for x in args.head_dims.split(",")):
                for causal in _flags(args.causal):
                    for deterministic in _flags(args.deterministic):
                        forms = [(w, m, st)
                                 for w in (int(x) for x in args.backward_warps.split(","))
                                 for m in (map_forms if not deterministic else [False])
                                 for st in stride_forms]
                        for warps, batch_maps, strided in forms:
                            spec = BackwardSpec(dtype, d, causal, deterministic, args.arch,
                                                warps, batch_maps=batch_maps, strided=strided)
                            try:
                                print(compile_backward_bundle(spec, args.out, args.flash_opt,
                                                              args.cubin_archs, extra))
                            except NotSupportedYet as e:
                                print(f"skipped: {spec.name} ({e})")
                                skipped += 1
                                continue
                            count += 1
                            for path in compile_backward_budgets(spec, budgets, args.out,
                                                                 args.flash_opt,
                                                                 args.cubin_archs, extra):
                                print(path)
                                count += 1
    for dtype in args.dtypes.split(","):
        for d in (int(x) for x in args.head_dims.split(",")):
            for causal in _flags(args.causal):
                for lse in _flags(args.lse):
                    for paged, rows in [(o == "paged", r) for o in ops
                                        if o in ("split_kv", "paged") for r in decode_rows]:
                        spec = DecodeSpec(dtype, d, causal, lse, paged, args.arch, rows=rows,
                                          fused_page_sizes=args.fused_page_sizes)
                        try:
                            print(compile_decode_bundle(spec, args.out, args.flash_opt,
                                                        args.cubin_archs))
                        except NotSupportedYet as e:  # e.g. sm_100a: forward only
                            print(f"skipped: {spec.name} ({e})")
                            skipped += 1
                            continue
                        count += 1
    for dtype in args.dtypes.split(",") if "forward" in ops else []:
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
                            for batch_maps, strided in [(m, s) for m in map_forms
                                                        for s in stride_forms]:
                                for one, seq_range in zip(specs, seq_ranges(specs)):
                                    one = dataclasses.replace(one, batch_maps=batch_maps,
                                                              strided=strided)
                                    path = compile_bundle(one, args.out, args.flash_opt,
                                                          args.cubin_archs, seq_range, extra)
                                    print(path)
                                    count += 1
    print(f"{count} bundles in {args.out}" +
          (f" ({skipped} not supported yet, skipped)" if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
