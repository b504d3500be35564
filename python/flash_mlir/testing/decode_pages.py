"""Run the paged decode kernels' page arithmetic on the CPU and check it.

``flash-opt --flash-test-decode-pages`` (test/lib/TestDecodePages.cpp)
defines ``@flash_decode_pages``: where the threads of one block of a paged
split kernel read, built by the same code as the GPU kernels
(``DecodePageRows``, include/flash/Conversion/FlashToNVGPU/SM80/DecodePages.h):
the block-table window of the block's part and the cache row of every key of
its tiles, through the window and from the table (the loop's and the
prologue's lookups), and in the separate merge's grouped form. This module
writes a module that calls it on random block tables (block tables as
``memref.global`` constants; the entries a sequence does not own poisoned),
runs it under ``mlir-runner`` and checks every output against the
definition: key t of sequence b is row ``block_table[b·M + t // S]·S + t % S``
of the cache, keys past the part's last key clamped to it (in the kernels for
S = 2^k, 16 <= S < 64, which look a page up once per 16 keys: any row of the
part's pages, where the kernels zero-fill).

Command line (with ``PYTHONPATH=python``)::

  python3 -m flash_mlir.testing.decode_pages --d 128 --page-size 64
"""

import argparse
import dataclasses
import os
import sys
from typing import List, Optional, Sequence

import numpy as np

from flash_mlir.testing.cpu_case import (check_harness_cases, print_results,
                                         run_harness_module)

LOWERING = ["--convert-scf-to-cf", "--finalize-memref-to-llvm", "--convert-to-llvm",
            "--reconcile-unrealized-casts"]

BLOCK_KV = 64          # kSplitKVBlockKV
THREADS = 128          # kSplitKVWarps · 32
WINDOW = 512           # decodeTableWindow(2): two blocks an SM; 1024 at one
WINDOW_BASE = 512      # kDecodeTableWindowBase: loaded past it only for more pages
HEADER = 8
SENTINEL = -7          # words the harness must not write
POISON = -(1 << 20)    # table entries the sequence does not own


@dataclasses.dataclass(frozen=True)
class PagesConfig:
    """One compiled harness: what the kernel fixes at compile time."""
    d: int = 128
    page_size: int = 0     # a kernel for one page size (`_s<S>`), or 0 (any S)
    grouped: bool = False  # the separate merge's split kernel (any S)
    stages: int = 3
    window: int = WINDOW   # block-table window entries (decodeTableWindow)

    def pass_option(self) -> str:
        return ("--flash-test-decode-pages=head-dim=%d page-size=%d grouped=%d stages=%d window=%d"
                % (self.d, self.page_size, int(self.grouped), self.stages, self.window))

    def short_id(self) -> str:
        return "D%d_%s%s_st%d%s" % (self.d, "s%d" % self.page_size if self.page_size else "anyS",
                                    "_grouped" if self.grouped else "", self.stages,
                                    "" if self.window == WINDOW else "_w%d" % self.window)

    @property
    def rows_per_pass(self) -> int:
        return THREADS // (self.d // 8)

    @property
    def passes(self) -> int:
        return BLOCK_KV * (self.d // 8) // THREADS

    @property
    def lookup_per_16_keys(self) -> bool:
        """A kernel for S = 2^k, 16 <= S < 64 (`_s16`, `_separate_s16`):
        one lookup per aligned 16 keys, the group's rows past the part
        wrapped into its page (DecodePageRows::onePageA16Keys)."""
        return 16 <= self.page_size < BLOCK_KV and self.page_size & (self.page_size - 1) == 0

    @property
    def modes(self) -> int:
        return 4 if self.grouped else 2


@dataclasses.dataclass
class PagesCase:
    """One block: sequence `batch` of `length` keys in pages of `s` slots,
    its part's tiles [tile_begin, tile_end); the table is B×M."""
    s: int
    length: int
    tile_begin: int
    tile_end: int
    batch: int
    m: int
    table: np.ndarray      # int32, B·M entries
    num_pages: int         # P: pages of the cache
    tiles: int             # tiles the harness computes from tile_begin

    def short_id(self) -> str:
        return "S%d_L%d_tiles%d-%d_M%d" % (self.s, self.length, self.tile_begin,
                                           self.tile_end, self.m)


def make_case(rng: np.random.Generator, cfg: PagesConfig, s: int, length: int,
              tiles_per_part: Optional[int] = None, part: Optional[int] = None,
              spare: int = 2, batches: int = 3) -> PagesCase:
    """A random block table for `length` keys in pages of `s` slots (pages
    shuffled over a cache of twice as many, the unowned entries and the other
    sequences' rows poisoned) and one part of it, as a kernel's block sees it."""
    num_tiles = -(-length // BLOCK_KV)
    owned = -(-length // s)
    m = owned + spare
    num_pages = 2 * owned + 5
    batch = int(rng.integers(0, batches))
    table = np.full(batches * m, POISON, dtype=np.int64)
    table[batch * m: batch * m + owned] = rng.permutation(num_pages)[:owned]
    if tiles_per_part is None:
        tiles_per_part = num_tiles
    parts = -(-num_tiles // tiles_per_part)
    if part is None:
        part = int(rng.integers(0, parts))
    assert 0 <= part < parts
    tile_begin = part * tiles_per_part
    tile_end = min(tile_begin + tiles_per_part, num_tiles)
    tiles = max(tile_end - tile_begin, cfg.stages - 1)
    return PagesCase(s, length, tile_begin, tile_end, batch, m, table.astype(np.int32),
                     num_pages, tiles)


def render_module(cfg: PagesConfig, cases: Sequence[PagesCase]) -> str:
    sig = "memref<?xi32>, memref<?xi32>, memref<?xi32>, i32, i32, i32, i32, i32, i32, i32"
    lines = ["// Generated by flash_mlir.testing.decode_pages for %s" % cfg.short_id(),
             "module {"]
    for n, c in enumerate(cases):
        lines.append('  memref.global "private" constant @table%d : memref<%dxi32> = dense<[%s]>'
                     % (n, c.table.size, ", ".join(str(int(x)) for x in c.table)))
    lines += [
        "  func.func private @flash_decode_pages(%s)" % sig,
        "  func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}",
        "  func.func @main() {",
        "    %c0 = arith.constant 0 : index",
        "    %c1 = arith.constant 1 : index",
        "    %%sentinel = arith.constant %d : i32" % SENTINEL,
    ]
    for n, c in enumerate(cases):
        size = out_size(cfg, c)
        lines += [
            "    %%t%d = memref.get_global @table%d : memref<%dxi32>" % (n, n, c.table.size),
            "    %%t%d_d = memref.cast %%t%d : memref<%dxi32> to memref<?xi32>" % (n, n, c.table.size),
        ]
        for name, words in (("w", cfg.window), ("o", size)):
            lines += [
                "    %%%s%d = memref.alloc() : memref<%dxi32>" % (name, n, words),
                "    %%%s%d_n = arith.constant %d : index" % (name, n, words),
                "    scf.for %%i = %%c0 to %%%s%d_n step %%c1 {" % (name, n),
                "      memref.store %%sentinel, %%%s%d[%%i] : memref<%dxi32>" % (name, n, words),
                "    }",
                "    %%%s%d_d = memref.cast %%%s%d : memref<%dxi32> to memref<?xi32>" % (name, n, name, n, words),
                "    %%%s%d_u = memref.cast %%%s%d : memref<%dxi32> to memref<*xi32>" % (name, n, name, n, words),
            ]
        args = ["%%t%d_d" % n, "%%w%d_d" % n, "%%o%d_d" % n]
        for name, val in (("s", c.s), ("m", c.m), ("b", c.batch), ("len", c.length),
                          ("tb", c.tile_begin), ("te", c.tile_end), ("nt", c.tiles)):
            lines.append("    %%%s%d = arith.constant %d : i32" % (name, n, val))
            args.append("%%%s%d" % (name, n))
        lines.append("    func.call @flash_decode_pages(%s) : (%s) -> ()" % (", ".join(args), sig))
        lines.append("    func.call @printMemrefI32(%%o%d_u) : (memref<*xi32>) -> ()" % n)
        lines.append("    func.call @printMemrefI32(%%w%d_u) : (memref<*xi32>) -> ()" % n)
        lines.append("    memref.dealloc %%o%d : memref<%dxi32>" % (n, size))
        lines.append("    memref.dealloc %%w%d : memref<%dxi32>" % (n, cfg.window))
    lines += ["    return", "  }", "}", ""]
    return "\n".join(lines)


def out_size(cfg: PagesConfig, c: PagesCase) -> int:
    return HEADER + cfg.window + cfg.modes * c.tiles * BLOCK_KV


def check_case(cfg: PagesConfig, c: PagesCase, out: np.ndarray, window: np.ndarray) -> List[str]:
    """What the harness printed against the definition; the list of errors."""
    errors: List[str] = []
    # Per kind of word (header, window, mode m): how many are wrong, the first.
    wrong: dict = {}
    s, length, b, m = c.s, c.length, c.batch, c.m
    table = c.table.astype(np.int64)
    owned = -(-length // s)

    def entry(index: int) -> int:
        # A read past the sequence's own entries: a defect whatever it holds.
        if not 0 <= index < owned:
            count, first = wrong.get("oracle", (0, "table entry %d read (the sequence owns %d)"
                                                % (index, owned)))
            wrong["oracle"] = (count + 1, first)
        return int(table[b * m + index]) if 0 <= b * m + index < table.size else POISON

    def row(key: int) -> int:
        return entry(key // s) * s + key % s

    def expect(what: str, got: int, want: int):
        if got != want:
            kind = what.split(" tile")[0].split(" entry")[0].split(" slot")[0].split(" word")[0]
            count, first = wrong.get(kind, (0, "%s: %d, expected %d" % (what, got, want)))
            wrong[kind] = (count + 1, first)

    part_last = min(c.tile_end * BLOCK_KV, length) - 1
    first_page = c.tile_begin * BLOCK_KV // s
    pages = part_last // s - first_page + 1
    windowed = pages <= cfg.window
    pow2 = s & (s - 1) == 0
    fast = cfg.grouped and pow2 and s >= 16
    last_issued = min(c.tile_begin + cfg.stages - 1, c.tile_end) - 1
    prologue_fast = fast and (last_issued + 1) * BLOCK_KV <= length
    header = [int(windowed), first_page, part_last, pages]
    if cfg.grouped:
        header += [int(fast), int(prologue_fast)]
    header += [SENTINEL] * (HEADER - len(header))
    for i, (got, want) in enumerate(zip(out[:HEADER], header)):
        expect("header word %d" % i, int(got), want)

    # The window: loaded where the kernel loads it (the entries past the
    # base only for a part of more pages), stored when it fits.
    for e in range(cfg.window):
        in_round = e < WINDOW_BASE or pages > WINDOW_BASE
        loaded = (cfg.grouped or windowed) and in_round
        want = entry(first_page + min(e, pages - 1)) if loaded else SENTINEL
        expect("window entry %d as loaded" % e, int(out[HEADER + e]), want)
        expect("window slot %d" % e, int(window[e]), want if windowed and in_round else SENTINEL)

    rpp, passes = cfg.rows_per_pass, cfg.passes
    base = HEADER + cfg.window

    def rows_of(mode: int, t: int) -> np.ndarray:
        start = base + (mode * c.tiles + t) * BLOCK_KV
        return out[start:start + BLOCK_KV].astype(np.int64)

    def key_of(t: int, r: int, p: int) -> int:
        return (c.tile_begin + t) * BLOCK_KV + r + p * rpp

    def clamped(key: int) -> int:
        return max(min(key, part_last), 0)

    prologue = range(cfg.stages - 1)
    part_pages = {entry(j) for j in range(first_page, part_last // s + 1)}
    for t in range(c.tiles):
        tile = c.tile_begin + t
        in_part = tile < c.tile_end
        for mode in range(cfg.modes):
            got = rows_of(mode, t)
            for r in range(rpp):
                for p in range(passes):
                    what = "mode %d tile %d key %d" % (mode, tile, key_of(t, r, p))
                    g = int(got[r * passes + p])
                    key = key_of(t, r, p)
                    if mode in (0, 1):
                        # The loop's (tiles of the part) and the prologue's
                        # (its first stages - 1 tiles, issued or not) rows.
                        if not ((mode == 0 and in_part) or (mode == 1 and t in prologue)):
                            continue
                        if key <= part_last or not cfg.lookup_per_16_keys:
                            expect(what, g, row(clamped(key)))
                        else:
                            # Past the part (zero-filled on the GPU): a
                            # lookup per 16 keys wraps the row into its
                            # group's page, so any slot of the part's pages.
                            expect(what + " (past the part: in its pages)",
                                   int(g // s in part_pages and g >= 0), 1)
                    elif mode == 2:
                        full = (tile + 1) * BLOCK_KV <= length
                        expect(what, g, row(key) if fast and full and in_part else SENTINEL)
                    elif mode == 3 and t in prologue:
                        if not prologue_fast:
                            expect(what, g, SENTINEL)
                        elif in_part:
                            expect(what, g, row(key))
                        else:
                            # Computed, not issued: the group's first key
                            # clamped, its rows at fixed offsets after it.
                            group = min(max(16 // rpp, 1), passes)
                            p0 = p - p % group
                            k0 = clamped(key_of(t, r, p0))
                            expect(what, g, row(k0) + (p - p0) * rpp)
    for kind, (count, first) in wrong.items():
        errors.append("%s: %d wrong, first %s" % (kind, count, first))
    return errors


def execute(cfg: PagesConfig, cases: Sequence[PagesCase], flash_opt: str,
            timeout: float = 300.0, workdir: Optional[str] = None):
    """Compile and run every case in one module: ``(outputs, error, tmp,
    reproducer)``, per case the printed (out, window)."""
    return run_harness_module(render_module(cfg, cases), "decode_pages", [cfg.pass_option()] + LOWERING,
                              flash_opt, 2, len(cases), timeout, workdir)


def run(cfg: PagesConfig, cases: Sequence[PagesCase], flash_opt: str,
        timeout: float = 300.0, workdir: Optional[str] = None):
    """Run and check every case: ``(results, error)``, per case ``(ok, message)``."""
    return check_harness_cases(cases, execute(cfg, cases, flash_opt, timeout, workdir),
                               lambda c, *out: check_case(cfg, c, *out), workdir)


def standard_cases(cfg: PagesConfig, seed: int = 0) -> List[PagesCase]:
    """Page sizes, lengths and parts that reach every branch of the
    arithmetic: S of 1, 3, 5, 16, 48, 64, 256 (or the kernel's constant),
    lengths of a key, around a page and a tile, on page and tile boundaries,
    whole sequences, parts of a cut one (the middle, the last, one tile, a
    second part of three pages or more),
    parts of more pages than the window holds and of exactly as many."""
    rng = np.random.default_rng(seed)
    sizes = [cfg.page_size] if cfg.page_size else [1, 3, 5, 16, 48, 64, 256]
    cases = []
    for s in sizes:
        lengths = sorted({1, s - 1 if s > 1 else 2, s, s + 1, 63, 64, 65, 200,
                          3 * s + 7, 1000})
        for length in lengths:
            cases.append(make_case(rng, cfg, s, length))
        # A cut sequence: a part in the middle, the last part, parts of one tile.
        cases.append(make_case(rng, cfg, s, 1000, tiles_per_part=4, part=1))
        cases.append(make_case(rng, cfg, s, 1000, tiles_per_part=4, part=3))
        cases.append(make_case(rng, cfg, s, 777, tiles_per_part=1))
        # A second part that starts past page 0 and spans three pages or more.
        tiles = max(1, -(-3 * s // BLOCK_KV))
        cases.append(make_case(rng, cfg, s, 2 * tiles * BLOCK_KV + 5, tiles_per_part=tiles, part=1))
        # More pages than the window holds (at S = 1, and 3 with 512
        # entries), or not.
        cases.append(make_case(rng, cfg, s, 64 * 30 + 5, tiles_per_part=28, part=0))
        if cfg.window * s % 64 == 0 and s < 16:
            # A part of exactly the window's pages (after a first part).
            cases.append(make_case(rng, cfg, s, 2 * cfg.window * s + 100,
                                   tiles_per_part=cfg.window * s // 64, part=1))
    return cases


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--page-size", type=int, default=0)
    ap.add_argument("--grouped", action="store_true")
    ap.add_argument("--stages", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--flash-opt", default=os.environ.get("FLASH_OPT", "build/bin/flash-opt"))
    ap.add_argument("--workdir")
    args = ap.parse_args(argv)
    cfg = PagesConfig(args.d, args.page_size, args.grouped, args.stages)
    return print_results(*run(cfg, standard_cases(cfg, args.seed), args.flash_opt,
                              workdir=args.workdir))


if __name__ == "__main__":
    sys.exit(main())
