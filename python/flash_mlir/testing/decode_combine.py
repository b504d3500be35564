"""Run the split-KV kernels' combine of their warps on the CPU and check it.

``flash-opt --flash-test-decode-combine`` (test/lib/TestDecodeCombine.cpp)
defines ``@flash_decode_combine``: the combine of a split kernel's four warps'
online-softmax states of one row tile, built by the same code as the GPU
kernels (``storeWarpCombineWords``, ``combineWarpSlices``,
``combineIntoFirstWarp``; include/flash/Conversion/FlashToNVGPU/SM80/DecodeMerge.h).
This module writes a module that calls it on random warp states (f32 bit
patterns as a ``memref.global`` constant; the outputs printed back as 32-bit
words, so nothing is lost to printing), runs it under ``mlir-runner`` and
checks every combining thread's common maxima (exact), its part of the row
sums and its accumulator registers against a float64 combine:

  M = max_w m_w,  l = sum_w f_w l_w,  acc = sum_w f_w acc_w,
  f_w = 2^((m_w - M) c)  (0 where m_w = -inf; M c taken as 0 where every m_w is)

with c = scale * log2 e. A thread's state: per thread row (2 a 16-row tile:
lane group g's rows g and g + 8) the maximum m (raw scores; the same on the
four lanes of a quad, as the kernels' softmax leaves it), the thread's part
of the sum, and its accumulator registers (register (mt, nt, e): row mt*2 +
e // 2, column tile nt).

Command line (with ``PYTHONPATH=python``)::

  python3 -m flash_mlir.testing.decode_combine --d 128 --m-tiles 1 --combine slices
"""

import argparse
import dataclasses
import os
import sys
from typing import List, Optional, Sequence

import numpy as np

from flash_mlir.testing.cpu_case import (check_harness_cases, f32_hex, print_results,
                                         run_harness_module, words_to_f32)

LOWERING = ["--convert-scf-to-cf", "--finalize-memref-to-llvm", "--convert-to-llvm",
            "--reconcile-unrealized-casts"]
WARPS = 4          # kSplitKVWarps
SENTINEL = -7      # output words the harness must overwrite


@dataclasses.dataclass(frozen=True)
class CombineConfig:
    d: int = 128
    m_tiles: int = 1
    combine: str = "slices"     # or "first-warp"

    @property
    def rows(self) -> int:        # thread rows
        return 2 * self.m_tiles

    @property
    def n_tiles(self) -> int:
        return self.d // 8

    @property
    def words(self) -> int:       # a lane's words (warpCombineWordsPerWarp / 32)
        return 2 * self.rows + self.m_tiles * self.n_tiles * 4

    @property
    def slice_tiles(self) -> int:
        return self.n_tiles // WARPS if self.combine == "slices" else self.n_tiles

    @property
    def out_words(self) -> int:
        return 2 * self.rows + self.m_tiles * self.slice_tiles * 4

    @property
    def combiners(self) -> int:   # warps that combine
        return WARPS if self.combine == "slices" else 1

    def pass_option(self) -> str:
        return "--flash-test-decode-combine=head-dim=%d m-tiles=%d combine=%s" % (
            self.d, self.m_tiles, self.combine)

    def short_id(self) -> str:
        return "D%d_m%d_%s" % (self.d, self.m_tiles, self.combine)


@dataclasses.dataclass
class CombineCase:
    """Four warps' states: m (warps × 8 lane groups × thread rows; the quad's
    lanes share it), l (warps × 32 lanes × thread rows), acc (warps × 32
    lanes × registers)."""
    name: str
    scale: float
    m: np.ndarray
    l: np.ndarray
    acc: np.ndarray

    def short_id(self) -> str:
        return self.name


def register_rows(cfg: CombineConfig, tiles: int) -> np.ndarray:
    """The thread row of each register of a fragment of `tiles` column tiles
    (AccumulatorLayout::rowOfRegister of the mma quad layout)."""
    reg = np.arange(cfg.m_tiles * tiles * 4)
    return (reg // (4 * tiles)) * 2 + (reg % 4) // 2


def make_case(rng: np.random.Generator, cfg: CombineConfig, kind: str) -> CombineCase:
    """Warp states of `kind`: `random` maxima; `empty` (some warps saw no
    key of some rows, m = -inf with l = 0 and acc = 0, and one row no warp
    saw); `spread` (one warp's maximum 60 above the others', whose factors
    vanish in f32); `equal` (every warp the same maximum: all factors 1)."""
    rows = cfg.rows
    m = rng.uniform(-4.0, 6.0, size=(WARPS, 8, rows))
    if kind == "spread":
        m[rng.integers(0, WARPS)] += 60.0
    elif kind == "equal":
        m[:] = m[0]
    empty = np.zeros((WARPS, 8, rows), dtype=bool)
    if kind == "empty":
        empty = rng.random(size=(WARPS, 8, rows)) < 0.45
        empty[:, 0, 0] = True            # lane group 0's first row: no warp saw a key
        empty[1:, 1, 0] = True           # lane group 1's: only warp 0
        empty[:3, 2, rows - 1] = True    # lane group 2's last row: only warp 3
    m[empty] = -np.inf
    lane_empty = np.repeat(empty, 4, axis=1)                     # warps × 32 × rows
    l = rng.uniform(0.25, 8.0, size=(WARPS, 32, rows))
    l[lane_empty] = 0.0
    acc = rng.standard_normal(size=(WARPS, 32, cfg.m_tiles * cfg.n_tiles * 4)) * 3.0
    acc[np.broadcast_to(lane_empty[:, :, register_rows(cfg, cfg.n_tiles)], acc.shape)] = 0.0
    scale = float(np.float32(1.0 / np.sqrt(cfg.d)))
    return CombineCase("%s_seed" % kind, scale, m.astype(np.float32), l.astype(np.float32),
                       acc.astype(np.float32))


def states_words(cfg: CombineConfig, c: CombineCase) -> np.ndarray:
    """%states: word i of lane l of warp w at (w·words + i)·32 + l."""
    lane_m = np.repeat(c.m, 4, axis=1)                            # warps × 32 × rows
    per_lane = np.concatenate([lane_m, c.l, c.acc], axis=2)        # warps × 32 × words
    return np.ascontiguousarray(per_lane.transpose(0, 2, 1)).reshape(-1).astype(np.float32)


def combine_reference(cfg: CombineConfig, c: CombineCase):
    """float64 combine: per (lane, thread row) M, l; per (lane, register) acc
    and the bound of each value's f32 rounding (sum_w |f_w x_w|)."""
    lane_m = np.repeat(c.m, 4, axis=1).astype(np.float64)          # warps × 32 × rows
    common = np.max(lane_m, axis=0)                                # 32 × rows
    cl2 = np.float64(np.float32(np.float32(c.scale) * np.float32(np.log2(np.e))))
    shift = np.where(np.isfinite(common), common, 0.0)
    with np.errstate(invalid="ignore"):
        f = np.where(np.isfinite(lane_m), np.exp2((lane_m - shift) * cl2), 0.0)
    l = np.sum(f * c.l, axis=0)
    l_mag = np.sum(np.abs(f * c.l), axis=0)
    rows_of = register_rows(cfg, cfg.n_tiles)
    fr = f[:, :, rows_of]                                          # warps × 32 × regs
    acc = np.sum(fr * c.acc, axis=0)
    acc_mag = np.sum(np.abs(fr * c.acc), axis=0)
    return common, l, l_mag, acc, acc_mag


def render_module(cfg: CombineConfig, cases: Sequence[CombineCase]) -> str:
    sig = "memref<?xf32>, memref<?xf32>, f32"
    n_out = cfg.combiners * cfg.out_words * 32
    lines = ["// Generated by flash_mlir.testing.decode_combine for %s" % cfg.short_id(),
             "module {"]
    for k, c in enumerate(cases):
        s = states_words(cfg, c)
        lines.append('  memref.global "private" constant @st%d : memref<%dxf32> = dense<"0x%s">'
                     % (k, s.size, f32_hex(s)))
    lines += [
        "  func.func private @flash_decode_combine(%s)" % sig,
        "  func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}",
        "  func.func @main() {",
        "    %c0 = arith.constant 0 : index",
        "    %c1 = arith.constant 1 : index",
        "    %%sentinel = arith.constant %d : i32" % SENTINEL,
        "    %%nout = arith.constant %d : index" % n_out,
    ]
    for k, c in enumerate(cases):
        n_st = cfg.words * 32 * WARPS
        lines += [
            "    %%st%d_g = memref.get_global @st%d : memref<%dxf32>" % (k, k, n_st),
            "    %%st%d = memref.cast %%st%d_g : memref<%dxf32> to memref<?xf32>" % (k, k, n_st),
            "    %%out%d_b = memref.alloc() : memref<%dxi8>" % (k, 4 * n_out),
            "    %%out%d_f = memref.view %%out%d_b[%%c0][] : memref<%dxi8> to memref<%dxf32>"
            % (k, k, 4 * n_out, n_out),
            "    %%out%d_i = memref.view %%out%d_b[%%c0][] : memref<%dxi8> to memref<%dxi32>"
            % (k, k, 4 * n_out, n_out),
            "    scf.for %i = %c0 to %nout step %c1 {",
            "      memref.store %%sentinel, %%out%d_i[%%i] : memref<%dxi32>" % (k, n_out),
            "    }",
            "    %%out%d_d = memref.cast %%out%d_f : memref<%dxf32> to memref<?xf32>" % (k, k, n_out),
            "    %%out%d_u = memref.cast %%out%d_i : memref<%dxi32> to memref<*xi32>" % (k, k, n_out),
            "    %%scale%d = arith.constant %s : f32" % (k, repr(float(np.float32(c.scale)))),
            "    func.call @flash_decode_combine(%%st%d, %%out%d_d, %%scale%d) : (%s) -> ()"
            % (k, k, k, sig),
            "    func.call @printMemrefI32(%%out%d_u) : (memref<*xi32>) -> ()" % k,
        ]
    lines += ["    return", "  }", "}", ""]
    return "\n".join(lines)


def check_case(cfg: CombineConfig, c: CombineCase, out_words) -> List[str]:
    errors: List[str] = []
    words = np.asarray(out_words, dtype=np.float64).astype(np.int64)
    if np.any(words == SENTINEL):
        errors.append("%d output words not written" % int((words == SENTINEL).sum()))
    got = words_to_f32(out_words).astype(np.float64).reshape(
        cfg.combiners, cfg.out_words, 32).transpose(0, 2, 1)         # combiners × 32 × outWords
    if np.any(np.isnan(got)):
        errors.append("NaN in %d output words" % int(np.isnan(got).sum()))
    common, l, l_mag, acc, acc_mag = combine_reference(cfg, c)
    rows = cfg.rows
    # f32: the factors' exponent (m_w c - M c, one fma after a rounded product),
    # exp2, and a sum of four terms.
    rel = 2.0 ** -16

    def compare(what, value, ref, bound):
        with np.errstate(invalid="ignore"):
            bad = ~((value == ref) | (np.abs(value - ref) <= bound))
        if np.any(bad):
            i = np.unravel_index(np.argmax(bad), bad.shape)
            errors.append("%s: %d wrong, first at %s: %r, expected %r (bound %.3g)"
                          % (what, int(bad.sum()), tuple(int(x) for x in i), float(value[i]),
                             float(ref[i]), float(np.broadcast_to(bound, bad.shape)[i])))

    tiles = cfg.slice_tiles
    for w in range(cfg.combiners):
        g = got[w]
        compare("warp %d M" % w, g[:, :rows], common, 0.0)
        compare("warp %d l" % w, g[:, rows:2 * rows], l, rel * l_mag + 1e-30)
        # Register (mt, t, e) of warp w's slice: column tile w·tiles + t.
        mt, t, e = np.meshgrid(np.arange(cfg.m_tiles), np.arange(tiles), np.arange(4),
                               indexing="ij")
        full = ((mt * cfg.n_tiles + w * tiles + t) * 4 + e).reshape(-1)
        compare("warp %d acc" % w, g[:, 2 * rows:], acc[:, full], rel * acc_mag[:, full] + 1e-30)
    return errors


def execute(cfg: CombineConfig, cases: Sequence[CombineCase], flash_opt: str,
            timeout: float = 300.0, workdir: Optional[str] = None):
    """Compile and run every case in one module: ``(outputs, error, tmp,
    reproducer)``, per case the printed output words."""
    return run_harness_module(render_module(cfg, cases), "decode_combine",
                              [cfg.pass_option()] + LOWERING, flash_opt, 1, len(cases),
                              timeout, workdir)


def run(cfg: CombineConfig, cases: Sequence[CombineCase], flash_opt: str,
        timeout: float = 300.0, workdir: Optional[str] = None):
    """Run and check every case: ``(results, error)``, per case ``(ok, message)``."""
    return check_harness_cases(cases, execute(cfg, cases, flash_opt, timeout, workdir),
                               lambda c, *out: check_case(cfg, c, *out), workdir)


def standard_cases(cfg: CombineConfig, seed: int = 0) -> List[CombineCase]:
    """Random, empty (holes and a row no warp saw), spread and equal maxima,
    two draws each."""
    rng = np.random.default_rng(seed)
    cases = []
    for kind in ("random", "empty", "spread", "equal"):
        for k in range(2):
            c = make_case(rng, cfg, kind)
            c.name = "%s%d" % (kind, k)
            cases.append(c)
    return cases


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--m-tiles", type=int, default=1)
    ap.add_argument("--combine", default="slices", choices=("slices", "first-warp"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--flash-opt", default=os.environ.get("FLASH_OPT", "build/bin/flash-opt"))
    ap.add_argument("--workdir")
    args = ap.parse_args(argv)
    cfg = CombineConfig(args.d, args.m_tiles, args.combine)
    return print_results(*run(cfg, standard_cases(cfg, args.seed), args.flash_opt,
                              workdir=args.workdir))


if __name__ == "__main__":
    sys.exit(main())
