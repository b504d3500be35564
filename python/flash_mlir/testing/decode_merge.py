"""Run the decode kernels' merge of parts on the CPU and check it.

``flash-opt --flash-test-decode-merge`` (test/lib/TestDecodeMerge.cpp) defines
``@flash_decode_merge``: the split kernels' fused merge of a row's parts by
their LSE, built by the same code as the GPU kernels (``buildMergeRow`` and
``buildMergeGroups``, include/flash/Conversion/FlashToNVGPU/SM80/DecodeMerge.h),
in one level or (more than 32 parts) two; or (``form=kernel``) sm_90a's
separate merge kernel (``buildMergeKernelSums``, ``buildMergeKernelCombine``:
each of a block's 128 threads sums every 16th part of its 4 columns, the first
16 threads combine the groups), which leaves rows of fewer than two parts
alone and the partial slots unchanged; or (``form=pair``) sm_90a's pair merge
(``buildPairMergeRows``: two parts, each of a cluster's two blocks merging
its rows of the tile, rows 2·warp + rank + 8k), which writes the rows of
exactly two parts and nothing else. This module writes a module that
calls it on random partials (f32 bit patterns as ``memref.global``
constants, read and printed back as 32-bit words, so nothing is lost to
printing), runs it under ``mlir-runner`` and checks O (16-bit) and LSE
against a float64 merge, and the partial slots: in a two-level merge each
group's first slot holds the group's merge, every other slot is unchanged.

Command line (with ``PYTHONPATH=python``)::

  python3 -m flash_mlir.testing.decode_merge --dtype bf16 --d 128
"""

import argparse
import dataclasses
import os
import sys
from typing import List, Optional, Sequence

import numpy as np

from flash_mlir.testing.cpu_case import (check_harness_cases, f32_hex, print_results,
                                         run_harness_module, words_to_f32)

LOWERING = ["--convert-scf-to-cf", "--convert-vector-to-llvm", "--finalize-memref-to-llvm",
            "--convert-to-llvm", "--reconcile-unrealized-casts"]

MERGE_DIRECT = 32      # kSplitKVMergeDirect
MERGE_GROUP = 16       # kSplitKVMergeGroup
SENTINEL = -7          # O words and LSE bits the harness must overwrite
UNIT_ROUNDOFF = {"bf16": 2.0 ** -8, "f16": 2.0 ** -11}


@dataclasses.dataclass(frozen=True)
class MergeConfig:
    dtype: str = "bf16"
    d: int = 128
    lse: bool = True
    form: str = "fused"      # "kernel": sm_90a's separate merge kernel; "pair": its pair merge

    def pass_option(self) -> str:
        return "--flash-test-decode-merge=element-type=%s head-dim=%d lse=%d form=%s" % (
            self.dtype, self.d, int(self.lse), self.form)

    def short_id(self) -> str:
        return "%s_D%d%s%s" % (self.dtype, self.d, "_lse" if self.lse else "",
                               "" if self.form == "fused" else "_" + self.form)


@dataclasses.dataclass
class MergeCase:
    """`n` parts of `rows` output rows: part p of row r is partial row p·rows + r."""
    name: str
    n: int
    partial_o: np.ndarray    # float32, n × rows × Dv
    partial_lse: np.ndarray  # float32, n × rows (−inf: the part saw no key; its O is 0)

    @property
    def rows(self) -> int:
        return self.partial_lse.shape[1]

    def short_id(self) -> str:
        return "%s_n%d_rows%d" % (self.name, self.n, self.rows)


def make_case(rng: np.random.Generator, cfg: MergeConfig, n: int, kind: str,
              rows: int = 3) -> MergeCase:
    """Partials of `kind`: random LSEs, `rising` (each part above the last,
    so every batch raises the running maximum), `falling`, `holes` (parts
    that saw no key, and a row none of whose parts did), `spread` (one part
    60 above the rest: their weights vanish)."""
    lse = rng.uniform(-3.0, 3.0, size=(n, rows))
    if kind == "rising":
        lse += 0.7 * np.arange(n)[:, None]
    elif kind == "falling":
        lse -= 0.7 * np.arange(n)[:, None]
    elif kind == "spread":
        lse[rng.integers(0, n), :] += 60.0
    o = rng.standard_normal(size=(n, rows, cfg.d))
    if kind == "holes":
        empty = rng.random(size=(n, rows)) < 0.4
        empty[:, 0] = True                       # row 0: no part saw a key
        if rows > 1:
            empty[0, 1] = False                  # row 1: part 0 did
        lse[empty] = -np.inf
        o[empty] = 0.0
    return MergeCase(kind, n, o.astype(np.float32), lse.astype(np.float32))


def groups_of(n: int):
    """The kernels' merge groups (buildMergeGroups): (first, count) each."""
    if n <= MERGE_DIRECT:
        return [(0, n)]
    size = -(-n // -(-n // MERGE_GROUP))
    return [(f, min(size, n - f)) for f in range(0, n, size)]


def merge_reference(lse: np.ndarray, o: np.ndarray):
    """float64 merge of parts along axis 0: (O, LSE); O = 0, LSE = −inf where
    no part saw a key."""
    lse = lse.astype(np.float64)
    m = np.max(lse, axis=0)
    safe = np.where(np.isfinite(m), m, 0.0)
    w = np.where(np.isfinite(lse), np.exp(lse - safe), 0.0)
    total = w.sum(axis=0)
    out = np.einsum("pr,prd->rd", w, o.astype(np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(total[:, None] > 0, out / np.where(total > 0, total, 1.0)[:, None], 0.0)
        ref_lse = np.where(total > 0, safe + np.log(np.where(total > 0, total, 1.0)), -np.inf)
    return out, ref_lse


def render_module(cfg: MergeConfig, cases: Sequence[MergeCase]) -> str:
    sig = "memref<?xf32>, memref<?xf32>, memref<?xi32>, memref<?xf32>, i32, i32"
    lines = ["// Generated by flash_mlir.testing.decode_merge for %s" % cfg.short_id(),
             "module {"]
    for k, c in enumerate(cases):
        for name, a in (("po", c.partial_o), ("pl", c.partial_lse)):
            lines.append('  memref.global "private" constant @%s%d : memref<%dxf32> = dense<"0x%s">'
                         % (name, k, a.size, f32_hex(a.reshape(-1))))
    lines += [
        "  func.func private @flash_decode_merge(%s)" % sig,
        "  func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}",
        "  func.func @main() {",
        "    %c0 = arith.constant 0 : index",
        "    %c1 = arith.constant 1 : index",
        "    %%sentinel = arith.constant %d : i32" % SENTINEL,
    ]

    def buffer(name: str, words: int, source: Optional[str] = None):
        # An i8 buffer seen as f32 (the harness's) and as i32 (printed).
        out = [
            "    %%%s_b = memref.alloc() : memref<%dxi8>" % (name, 4 * words),
            "    %%%s_f = memref.view %%%s_b[%%c0][] : memref<%dxi8> to memref<%dxf32>"
            % (name, name, 4 * words, words),
            "    %%%s_i = memref.view %%%s_b[%%c0][] : memref<%dxi8> to memref<%dxi32>"
            % (name, name, 4 * words, words),
        ]
        if source:
            out += ["    %%%s_g = memref.get_global @%s : memref<%dxf32>" % (name, source, words),
                    "    memref.copy %%%s_g, %%%s_f : memref<%dxf32> to memref<%dxf32>"
                    % (name, name, words, words)]
        else:
            out += ["    %%%s_n = arith.constant %d : index" % (name, words),
                    "    scf.for %%i = %%c0 to %%%s_n step %%c1 {" % name,
                    "      memref.store %%sentinel, %%%s_i[%%i] : memref<%dxi32>" % (name, words),
                    "    }"]
        out += ["    %%%s_d = memref.cast %%%s_f : memref<%dxf32> to memref<?xf32>" % (name, name, words),
                "    %%%s_u = memref.cast %%%s_i : memref<%dxi32> to memref<*xi32>" % (name, name, words)]
        return out

    for k, c in enumerate(cases):
        rows = c.rows
        words = rows * cfg.d // 2
        lines += buffer("po%d" % k, c.partial_o.size, "po%d" % k)
        lines += buffer("pl%d" % k, c.partial_lse.size, "pl%d" % k)
        lines += buffer("lse%d" % k, rows)
        lines += [
            "    %%o%d = memref.alloc() : memref<%dxi32>" % (k, words),
            "    %%o%d_n = arith.constant %d : index" % (k, words),
            "    scf.for %%i = %%c0 to %%o%d_n step %%c1 {" % k,
            "      memref.store %%sentinel, %%o%d[%%i] : memref<%dxi32>" % (k, words),
            "    }",
            "    %%o%d_d = memref.cast %%o%d : memref<%dxi32> to memref<?xi32>" % (k, k, words),
            "    %%o%d_u = memref.cast %%o%d : memref<%dxi32> to memref<*xi32>" % (k, k, words),
            "    %%n%d = arith.constant %d : i32" % (k, c.n),
            "    %%rows%d = arith.constant %d : i32" % (k, rows),
            "    func.call @flash_decode_merge(%%po%d_d, %%pl%d_d, %%o%d_d, %%lse%d_d, %%n%d, %%rows%d) : (%s) -> ()"
            % (k, k, k, k, k, k, sig),
        ]
        for name in ("o%d_u", "lse%d_u", "po%d_u", "pl%d_u"):
            lines.append("    func.call @printMemrefI32(%%%s) : (memref<*xi32>) -> ()" % (name % k))
    lines += ["    return", "  }", "}", ""]
    return "\n".join(lines)


def _pairs_to_float(values: np.ndarray, dtype: str) -> np.ndarray:
    u16 = np.asarray(values, dtype=np.float64).astype(np.int64).astype("<u4").view("<u2")
    if dtype == "bf16":
        return (u16.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return u16.view(np.float16).astype(np.float64)


def check_case(cfg: MergeConfig, c: MergeCase, o_words, lse_words, po_words, pl_words) -> List[str]:
    errors: List[str] = []
    rows, d, n = c.rows, cfg.d, c.n
    maxabs = np.max(np.abs(c.partial_o), axis=0)           # rows × Dv
    scale = np.max(maxabs, axis=1, keepdims=True)          # rows × 1

    def compare(what, got, ref, bound):
        got = np.asarray(got, dtype=np.float64)
        with np.errstate(invalid="ignore"):            # inf − inf: compared by ==
            bad = ~((got == ref) | (np.abs(got - ref) <= bound))
        if np.any(bad):
            i = np.unravel_index(np.argmax(bad), bad.shape)
            errors.append("%s: %d wrong, first at %s: %r, expected %r (bound %.3g)"
                          % (what, int(bad.sum()), tuple(int(x) for x in i), float(got[i]),
                             float(ref[i]), float(np.broadcast_to(bound, bad.shape)[i])))

    # f32 weights (exp2 of (LSE − max)·log2 e) and sums of up to n terms.
    eta = lambda count: 2.0 ** -19 + (count + 4) * 2.0 ** -23  # noqa: E731
    kernel = cfg.form == "kernel"
    # The merge kernel: no groups of parts in slots, but each thread's sums
    # combined across the 16 groups of threads (a second rounding level).
    groups = [(0, n)] if kernel else groups_of(n)
    if (kernel and n < 2) or (cfg.form == "pair" and n != 2):
        # A row of one part: the split kernel wrote it; the merge leaves it
        # (the pair merge: only rows of two parts are its).
        if np.any(np.asarray(o_words) != SENTINEL) or np.any(np.asarray(lse_words) != SENTINEL):
            errors.append("a row of fewer than two parts written" if kernel
                          else "a row of %d parts written (the pair merge takes two)" % n)
        groups = []
    ref_o, ref_lse = merge_reference(c.partial_lse, c.partial_o)
    u = UNIT_ROUNDOFF[cfg.dtype]
    levels = 2 if len(groups) > 1 or kernel else 1
    o = _pairs_to_float(o_words, cfg.dtype).reshape(rows, d)
    if groups:
        compare("O", o, ref_o, u * np.abs(ref_o) + levels * eta(n) * scale * (1 + u))
        if cfg.lse:
            lse = words_to_f32(lse_words).astype(np.float64)
            compare("LSE", lse, ref_lse,
                    2.0 ** -18 * (1 + np.abs(np.where(np.isfinite(ref_lse), ref_lse, 0))))
    if not cfg.lse and np.any(np.asarray(lse_words) != SENTINEL):
        errors.append("LSE written without lse")
    po = words_to_f32(po_words).reshape(n, rows, d)
    pl = words_to_f32(pl_words).reshape(n, rows)
    slot = np.zeros(n, dtype=bool)
    if len(groups) > 1:
        for first, count in groups:
            slot[first] = True
            g_o, g_lse = merge_reference(c.partial_lse[first:first + count],
                                         c.partial_o[first:first + count])
            compare("group %d O" % first, po[first], g_o, eta(count) * scale)
            compare("group %d LSE" % first, pl[first], g_lse,
                    2.0 ** -18 * (1 + np.abs(np.where(np.isfinite(g_lse), g_lse, 0))))
    keep = ~slot
    same_o = po[keep].view(np.uint32) == c.partial_o[keep].view(np.uint32)
    same_l = pl[keep].view(np.uint32) == c.partial_lse[keep].view(np.uint32)
    if not (same_o.all() and same_l.all()):
        errors.append("partial slots other than the groups' first changed")
    return errors


def execute(cfg: MergeConfig, cases: Sequence[MergeCase], flash_opt: str,
            timeout: float = 300.0, workdir: Optional[str] = None):
    """Compile and run every case in one module: ``(outputs, error, tmp,
    reproducer)``, per case the printed (O, LSE, partial O, partial LSE)."""
    return run_harness_module(render_module(cfg, cases), "decode_merge", [cfg.pass_option()] + LOWERING,
                              flash_opt, 4, len(cases), timeout, workdir)


def run(cfg: MergeConfig, cases: Sequence[MergeCase], flash_opt: str,
        timeout: float = 300.0, workdir: Optional[str] = None):
    """Run and check every case: ``(results, error)``, per case ``(ok, message)``."""
    return check_harness_cases(cases, execute(cfg, cases, flash_opt, timeout, workdir),
                               lambda c, *out: check_case(cfg, c, *out), workdir)


# The merge kernel's bounds: a thread's batch of 8 parts 16 apart, so 128
# parts a pass of its loop (sm_90a's plans: max_splits 128; a plan compiled
# with more, e.g. --flash-to-ptx's default of the SM count, takes two).
KERNEL_COUNTS = (1, 2, 3, 15, 16, 17, 31, 33, 100, 127, 128, 129, 132, 200, 256)
# The pair merge's tile rows: fewer than the cluster's 8 warps, 8, one more,
# two passes and a row tile's 16 (blockQ of the shipped plans).
PAIR_ROWS = (1, 3, 8, 9, 15, 16)


def standard_cases(cfg: MergeConfig, seed: int = 0) -> List[MergeCase]:
    """Part counts around every bound of the merge: 2, 3, a batch (8, 16 or
    32 parts at Dv = 256, 128, 64) and one more, 31, 32 (one level), 33 (two
    levels, groups of 11), 47, 64 and 132 (the H200's SM count); for the
    merge kernel KERNEL_COUNTS (one part: left alone; a thread's first and
    second part; one and two passes of its loop); each with random, rising,
    falling, holed and spread LSEs. The pair merge: two parts of 1 to 16
    rows (a row tile: the rows its 8 warps of a cluster take once, twice or
    not at all), and 1 and 3 parts, which it must leave alone."""
    rng = np.random.default_rng(seed)
    cases = []
    if cfg.form == "pair":
        for rows in PAIR_ROWS:
            for kind in ("random", "rising", "falling", "holes", "spread"):
                cases.append(make_case(rng, cfg, 2, kind, rows))
        cases += [make_case(rng, cfg, 1, "random", 5), make_case(rng, cfg, 3, "random", 5)]
        return cases
    counts = KERNEL_COUNTS if cfg.form == "kernel" else (2, 3, 8, 9, 16, 17, 31, 32, 33, 47, 64, 132)
    for n in counts:
        for kind in ("random", "rising", "falling", "holes", "spread"):
            if n > 40 and kind in ("falling", "spread"):
                continue
            cases.append(make_case(rng, cfg, n, kind))
    return cases


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dtype", default="bf16", choices=("bf16", "f16"))
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--no-lse", action="store_true")
    ap.add_argument("--form", default="fused", choices=("fused", "kernel", "pair"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--flash-opt", default=os.environ.get("FLASH_OPT", "build/bin/flash-opt"))
    ap.add_argument("--workdir")
    args = ap.parse_args(argv)
    cfg = MergeConfig(args.dtype, args.d, not args.no_lse, args.form)
    return print_results(*run(cfg, standard_cases(cfg, args.seed), args.flash_opt,
                              workdir=args.workdir))


if __name__ == "__main__":
    sys.exit(main())
