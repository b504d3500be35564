"""Run what a split-KV kernel's block writes from its combined state on the CPU
and check it.

``flash-opt --flash-test-decode-result`` (test/lib/TestDecodeResult.cpp)
defines ``@flash_decode_result``: the split kernels' ``writeSplitResult``
(include/flash/Conversion/FlashToNVGPU/SM80/DecodeMerge.h), built by the same
code as the GPU kernels, in host-lanes mode (one warp as 32-lane vectors).
After the warps' combine every combining warp holds, per lane, its rows'
common maxima M, its part of their sums and its accumulator registers (of
every column tile, or with ``combine=slices`` of its quarter of them). From
that the block writes, for the rows of its row tile below the group's row
count:

  one part:      O = acc / l in the element type (0 where l = 0), and
                 LSE = M * scale + ln l (-inf where l = 0);
  several parts: the part's f32 O = acc / l and its LSE at partial row
                 part * B*Hq*Nq + (the group's first row) + row (with
                 ``shared``, as sm_90a's pair merge: at row - the row tile's
                 first row of the block's shared memory),

with l the sum over a quad's four lanes. This module writes a module that
calls it on random states and sizes (f32 bit patterns as ``memref.global``
constants; every output buffer filled with a sentinel first and printed back
as 32-bit words), runs it under ``mlir-runner`` and checks every word: the
ones the block must write against float64, every other one untouched.

Command line (with ``PYTHONPATH=python``)::

  python3 -m flash_mlir.testing.decode_result --d 128 --m-tiles 1 --combine slices
"""

import argparse
import dataclasses
import os
import sys
from typing import List, Optional, Sequence

import numpy as np

from flash_mlir.testing.cpu_case import (check_harness_cases, f32_hex, print_results,
                                         run_harness_module, words_to_f32)

LOWERING = ["--convert-scf-to-cf", "--convert-vector-to-llvm",
            "--finalize-memref-to-llvm", "--convert-to-llvm",
            "--reconcile-unrealized-casts"]
WARPS = 4          # kSplitKVWarps
SENTINEL = -7      # words the harness must not write (or must overwrite)
SIZE_NAMES = ("num_splits", "part", "batch", "q_heads", "seq_q", "tile_row0",
              "group_rows", "group_row0")


@dataclasses.dataclass(frozen=True)
class ResultConfig:
    d: int = 128
    m_tiles: int = 1
    combine: str = "slices"     # or "first-warp"
    element_type: str = "bf16"  # or "f16"
    lse: bool = True
    shared: bool = False        # several parts: into the pair merge's shared memory

    @property
    def rows(self) -> int:        # thread rows
        return 2 * self.m_tiles

    @property
    def n_tiles(self) -> int:
        return self.d // 8

    @property
    def slice_tiles(self) -> int:
        return self.n_tiles // WARPS if self.combine == "slices" else self.n_tiles

    @property
    def writers(self) -> int:     # warps that write
        return WARPS if self.combine == "slices" else 1

    @property
    def regs(self) -> int:
        return self.m_tiles * self.slice_tiles * 4

    @property
    def words(self) -> int:       # a lane's words of %state
        return 2 * self.rows + self.regs

    def pass_option(self) -> str:
        return ("--flash-test-decode-result=head-dim=%d m-tiles=%d combine=%s "
                "element-type=%s lse=%s shared=%s"
                % (self.d, self.m_tiles, self.combine, self.element_type,
                   str(self.lse).lower(), str(self.shared).lower()))

    def short_id(self) -> str:
        return "D%d_m%d_%s_%s%s%s" % (self.d, self.m_tiles, self.combine, self.element_type,
                                      "_lse" if self.lse else "", "_shared" if self.shared else "")


@dataclasses.dataclass
class ResultCase:
    """The combined state (m and l: writers x 32 lanes x thread rows, the same
    in every warp, m the same on a quad's lanes; acc: writers x 32 x
    registers) and the sizes."""
    name: str
    scale: float
    sizes: dict
    m: np.ndarray
    l: np.ndarray
    acc: np.ndarray

    def short_id(self) -> str:
        return self.name

    @property
    def all_rows(self) -> int:
        s = self.sizes
        return s["batch"] * s["q_heads"] * s["seq_q"]


def register_place(cfg: ResultConfig):
    """Per (lane, register) of a writer's fragment: the thread row (mt*2 +
    half), the row within the row tile and the column within the writer's
    columns (the m16n8 C fragment: register (mt, nt, i) of lane 4g + t holds
    row 16 mt + g + 8 (i // 2), column 8 nt + 2 t + i % 2)."""
    lane = np.arange(32)[:, None]
    reg = np.arange(cfg.regs)[None, :]
    g, t = lane // 4, lane % 4
    mt, nt, i = reg // (4 * cfg.slice_tiles), (reg // 4) % cfg.slice_tiles, reg % 4
    thread_row = np.broadcast_to(mt * 2 + i // 2, (32, cfg.regs))
    row = 16 * mt + g + 8 * (i // 2)
    col = 8 * nt + 2 * t + i % 2
    return thread_row, row, col


def make_case(rng: np.random.Generator, cfg: ResultConfig, name: str, parts: int,
              ragged: bool, empty: bool) -> ResultCase:
    """A case of `parts` parts (1: O and LSE), the row tile the group's last
    (`ragged`: only some of its rows inside the group) or not, with rows no
    key reached (`empty`: l = 0 and acc = 0) or not."""
    tile_rows = 16 * cfg.m_tiles
    tile_row0 = tile_rows * int(rng.integers(0, 3))
    group_rows = tile_row0 + (int(rng.integers(1, tile_rows)) if ragged
                              else tile_rows + int(rng.integers(0, 2)) * tile_rows)
    batch, q_heads = int(rng.integers(1, 4)), int(rng.choice([1, 4, 8]))
    seq_q = int(rng.integers(1, 4))
    # The group's first row: anywhere its rows fit among the B*Hq*Nq rows.
    all_rows = max(batch * q_heads * seq_q, group_rows + 3)
    seq_q = -(-all_rows // (batch * q_heads))
    all_rows = batch * q_heads * seq_q
    group_row0 = int(rng.integers(0, all_rows - group_rows + 1))
    sizes = dict(num_splits=parts, part=int(rng.integers(0, parts)), batch=batch,
                 q_heads=q_heads, seq_q=seq_q, tile_row0=tile_row0, group_rows=group_rows,
                 group_row0=group_row0)
    rows = cfg.rows
    m_quad = rng.uniform(-6.0, 9.0, size=(8, rows))
    l = rng.uniform(0.25, 8.0, size=(32, rows))
    acc = rng.standard_normal(size=(cfg.writers, 32, cfg.regs)) * 3.0
    if empty:
        dead = rng.random(size=(8, rows)) < 0.4
        dead[0, 0] = True
        m_quad[dead] = -np.inf
        lane_dead = np.repeat(dead, 4, axis=0)               # 32 x rows
        l[lane_dead] = 0.0
        thread_row, _, _ = register_place(cfg)
        acc[:, np.take_along_axis(lane_dead, thread_row, axis=1)] = 0.0
    m = np.broadcast_to(np.repeat(m_quad, 4, axis=0), (cfg.writers, 32, rows))
    l = np.broadcast_to(l, (cfg.writers, 32, rows))
    scale = float(np.float32(1.0 / np.sqrt(cfg.d)))
    return ResultCase(name, scale, sizes, m.astype(np.float32), l.astype(np.float32),
                      acc.astype(np.float32))


def state_words(cfg: ResultConfig, c: ResultCase) -> np.ndarray:
    """%state: word j of lane l of warp w at (w*words + j)*32 + l."""
    per_lane = np.concatenate([c.m, c.l, c.acc], axis=2)          # writers x 32 x words
    return np.ascontiguousarray(per_lane.transpose(0, 2, 1)).reshape(-1).astype(np.float32)


def buffer_sizes(cfg: ResultConfig, c: ResultCase):
    """Words of O (16-bit pairs), LSE, partial O, partial LSE."""
    n = c.all_rows
    parts = c.sizes["num_splits"]
    return n * cfg.d // 2, n, parts * n * cfg.d, parts * n


def expected(cfg: ResultConfig, c: ResultCase):
    """float64: {buffer: {word index: (value, bound)}} of every word the block
    writes (O words: the pair's two values and bounds)."""
    s = c.sizes
    d = cfg.d
    thread_row, row_in_tile, col = register_place(cfg)
    out = {"o": {}, "lse": {}, "partial_o": {}, "partial_lse": {}}

    def partial_row(row):
        """Where a part's row goes: the pair merge's shared memory (the
        tile's rows from 0) or the part's rows of the workspace."""
        if cfg.shared:
            return row - s["tile_row0"]
        return s["part"] * c.all_rows + s["group_row0"] + row
    mantissa, least = {"bf16": (7, -126.0), "f16": (10, -14.0)}[cfg.element_type]

    def rounding(value):
        """Half an ulp of the 16-bit result (its subnormals: of the least
        normal binade), plus the f32 division's error; 0 for 0 (a row no
        key reached is exactly 0)."""
        if value == 0:
            return 0.0
        exponent = max(np.floor(np.log2(abs(value))), least)
        return 0.5 * 2.0 ** (exponent - mantissa) + abs(value) * 2.0 ** -20
    for w in range(cfg.writers):
        l_quad = c.l[w].astype(np.float64).reshape(8, 4, cfg.rows).sum(axis=1)   # 8 x rows
        for lane in range(32):
            g = lane // 4
            for reg in range(cfg.regs):
                r = thread_row[lane, reg]
                row = s["tile_row0"] + row_in_tile[lane, reg]
                if row >= s["group_rows"]:
                    continue
                column = w * cfg.slice_tiles * 8 + col[lane, reg]
                lsum = l_quad[g, r]
                value = 0.0 if lsum == 0 else float(c.acc[w, lane, reg]) / lsum
                if s["num_splits"] == 1:
                    element = (s["group_row0"] + row) * d + column
                    pair = out["o"].setdefault(element // 2, [None, None])
                    pair[element % 2] = (value, rounding(value))
                else:
                    out["partial_o"][partial_row(row) * d + column] = (value, abs(value) * 2.0 ** -20 + 1e-30)
            # The LSE: warp 0 (slices) or the writer, lane t = 0 of each quad.
            if not (w == 0 and lane % 4 == 0):
                continue
            for r in range(cfg.rows):
                row = s["tile_row0"] + g + 16 * (r // 2) + 8 * (r % 2)
                if row >= s["group_rows"]:
                    continue
                lsum = l_quad[g, r]
                m = float(c.m[w, lane, r])
                lse = -np.inf if lsum == 0 else m * c.scale + np.log(lsum)
                bound = 0.0 if lsum == 0 else (abs(m * c.scale) + abs(np.log(lsum))) * 2.0 ** -18 + 1e-6
                if s["num_splits"] == 1:
                    if cfg.lse:
                        out["lse"][s["group_row0"] + row] = (lse, bound)
                else:
                    out["partial_lse"][partial_row(row)] = (lse, bound)
    return out


SIGNATURE = ("memref<?xf32>, memref<?xi32>, memref<?xf32>, memref<?xf32>, memref<?xf32>, "
             "memref<?xi32>, f32")


def render_module(cfg: ResultConfig, cases: Sequence[ResultCase]) -> str:
    lines = ["// Generated by flash_mlir.testing.decode_result for %s" % cfg.short_id(),
             "module {"]
    for k, c in enumerate(cases):
        st = state_words(cfg, c)
        lines.append('  memref.global "private" constant @st%d : memref<%dxf32> = dense<"0x%s">'
                     % (k, st.size, f32_hex(st)))
        sizes = ", ".join(str(c.sizes[n]) for n in SIZE_NAMES)
        lines.append('  memref.global "private" constant @sz%d : memref<%dxi32> = dense<[%s]>'
                     % (k, len(SIZE_NAMES), sizes))
    lines += [
        "  func.func private @flash_decode_result(%s)" % SIGNATURE,
        "  func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}",
        "  func.func @main() {",
        "    %c0 = arith.constant 0 : index",
        "    %c1 = arith.constant 1 : index",
        "    %%sentinel = arith.constant %d : i32" % SENTINEL,
    ]
    for k, c in enumerate(cases):
        n_st = cfg.words * 32 * cfg.writers
        lines += [
            "    %%st%d_g = memref.get_global @st%d : memref<%dxf32>" % (k, k, n_st),
            "    %%st%d = memref.cast %%st%d_g : memref<%dxf32> to memref<?xf32>" % (k, k, n_st),
            "    %%sz%d_g = memref.get_global @sz%d : memref<%dxi32>" % (k, k, len(SIZE_NAMES)),
            "    %%sz%d = memref.cast %%sz%d_g : memref<%dxi32> to memref<?xi32>"
            % (k, k, len(SIZE_NAMES)),
        ]
        views = []
        for name, n in zip(("o", "lse", "po", "pl"), buffer_sizes(cfg, c)):
            v = "%%%s%d" % (name, k)
            lines += [
                "    %s_b = memref.alloc() : memref<%dxi8>" % (v, 4 * n),
                "    %s_i = memref.view %s_b[%%c0][] : memref<%dxi8> to memref<%dxi32>"
                % (v, v, 4 * n, n),
                "    %s_n = arith.constant %d : index" % (v, n),
                "    scf.for %%i = %%c0 to %s_n step %%c1 {" % v,
                "      memref.store %%sentinel, %s_i[%%i] : memref<%dxi32>" % (v, n),
                "    }",
                "    %s_u = memref.cast %s_i : memref<%dxi32> to memref<*xi32>" % (v, v, n),
            ]
            if name == "o":
                lines.append("    %s = memref.cast %s_i : memref<%dxi32> to memref<?xi32>"
                             % (v, v, n))
            else:
                lines += [
                    "    %s_f = memref.view %s_b[%%c0][] : memref<%dxi8> to memref<%dxf32>"
                    % (v, v, 4 * n, n),
                    "    %s = memref.cast %s_f : memref<%dxf32> to memref<?xf32>" % (v, v, n),
                ]
            views.append(v)
        lines += [
            "    %%scale%d = arith.constant %s : f32" % (k, repr(float(np.float32(c.scale)))),
            "    func.call @flash_decode_result(%%st%d, %s, %%sz%d, %%scale%d) : (%s) -> ()"
            % (k, ", ".join(views), k, k, SIGNATURE),
        ]
        lines += ["    func.call @printMemrefI32(%s_u) : (memref<*xi32>) -> ()" % v for v in views]
    lines += ["    return", "  }", "}", ""]
    return "\n".join(lines)


def _halves(words: np.ndarray, element_type: str) -> np.ndarray:
    """The two 16-bit values of each word (element 0 in the low half)."""
    u = words.astype("<u4")
    lo, hi = (u & 0xFFFF).astype(np.uint32), (u >> 16).astype(np.uint32)
    if element_type == "bf16":
        conv = lambda h: (h << 16).astype("<u4").view("<f4").astype(np.float64)  # noqa: E731
    else:
        conv = lambda h: h.astype("<u2").view("<f2").astype(np.float64)         # noqa: E731
    return np.stack([conv(lo), conv(hi)], axis=-1)


def check_case(cfg: ResultConfig, c: ResultCase, o_words, lse_words, po_words,
               pl_words) -> List[str]:
    errors: List[str] = []
    want = expected(cfg, c)
    printed = {"o": o_words, "lse": lse_words, "partial_o": po_words, "partial_lse": pl_words}
    for name, values in printed.items():
        words = np.asarray(values, dtype=np.float64).astype(np.int64)
        expect = want[name]
        written = np.flatnonzero(words != SENTINEL)
        stray = sorted(set(written.tolist()) - set(expect))
        if stray:
            errors.append("%s: %d words written that the block must not write, first %d"
                          % (name, len(stray), stray[0]))
        if not expect:
            continue
        index = np.array(sorted(expect))
        missing = index[words[index] == SENTINEL]
        if missing.size:
            errors.append("%s: %d words not written, first %d" % (name, missing.size, missing[0]))
        if name == "o":
            got = _halves(words[index], cfg.element_type)                  # n x 2
            # A lane writes both columns of its pairs: both halves expected.
            ref = np.array([[p[0] for p in expect[i]] for i in index])
            bound = np.array([[p[1] for p in expect[i]] for i in index])
        else:
            got = words_to_f32(words[index]).astype(np.float64)
            ref = np.array([expect[i][0] for i in index])
            bound = np.array([expect[i][1] for i in index])
        with np.errstate(invalid="ignore"):
            bad = ~((got == ref) | (np.abs(got - ref) <= bound))
        # Unwritten words are reported above, not as wrong values.
        bad &= (words[index] != SENTINEL).reshape(-1, *([1] * (bad.ndim - 1)))
        if np.any(bad):
            i = np.unravel_index(np.argmax(bad), bad.shape)
            errors.append("%s: %d wrong, first at word %d: %r, expected %r (bound %.3g)"
                          % (name, int(bad.sum()), int(index[i[0]]), float(got[i]),
                             float(ref[i]), float(bound[i])))
    return errors


def execute(cfg: ResultConfig, cases: Sequence[ResultCase], flash_opt: str,
            timeout: float = 300.0, workdir: Optional[str] = None):
    """Compile and run every case in one module: ``(outputs, error, tmp,
    reproducer)``, per case the four printed buffers."""
    return run_harness_module(render_module(cfg, cases), "decode_result",
                              [cfg.pass_option()] + LOWERING, flash_opt, 4, len(cases),
                              timeout, workdir)


def run(cfg: ResultConfig, cases: Sequence[ResultCase], flash_opt: str,
        timeout: float = 300.0, workdir: Optional[str] = None):
    """Run and check every case: ``(results, error)``, per case ``(ok, message)``."""
    return check_harness_cases(cases, execute(cfg, cases, flash_opt, timeout, workdir),
                               lambda c, *out: check_case(cfg, c, *out), workdir)


def standard_cases(cfg: ResultConfig, seed: int = 0) -> List[ResultCase]:
    """One part and several, each with whole and ragged row tiles, and rows
    no key reached."""
    rng = np.random.default_rng(seed)
    cases = []
    for parts_name, parts in (("one", 1), ("parts", int(rng.integers(2, 9)))):
        for shape, ragged, empty in (("whole", False, False), ("ragged", True, False),
                                     ("empty", False, True), ("ragged_empty", True, True)):
            cases.append(make_case(rng, cfg, "%s_%s" % (parts_name, shape), parts, ragged, empty))
    return cases


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--m-tiles", type=int, default=1)
    ap.add_argument("--combine", default="slices", choices=("slices", "first-warp"))
    ap.add_argument("--element-type", default="bf16", choices=("bf16", "f16"))
    ap.add_argument("--no-lse", action="store_true")
    ap.add_argument("--shared", action="store_true",
                    help="several parts into the pair merge's shared memory")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--flash-opt", default=os.environ.get("FLASH_OPT", "build/bin/flash-opt"))
    ap.add_argument("--workdir")
    args = ap.parse_args(argv)
    cfg = ResultConfig(args.d, args.m_tiles, args.combine, args.element_type, not args.no_lse,
                       args.shared)
    return print_results(*run(cfg, standard_cases(cfg, args.seed), args.flash_opt,
                              workdir=args.workdir))


if __name__ == "__main__":
    sys.exit(main())
