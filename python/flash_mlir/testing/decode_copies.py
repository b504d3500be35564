"""Run the split-KV kernels' K/V tile copies on the CPU and check them.

``flash-opt --flash-test-decode-copies`` (test/lib/TestDecodeCopies.cpp)
defines ``@flash_decode_copies``: every thread of one block issuing K/V tile
``tile`` into stage ``stage`` of its rings, built by the same code as the GPU
kernels (``DecodeTileCopies``,
include/flash/Conversion/FlashToNVGPU/SM80/DecodeCopies.h), each 16-byte
``cp.async`` made a scalar copy of 8 words that zero-fills past its source
size. This module writes a module that fills the caches with their own word
indices (K word i holds i + 1, V word i holds -(i + 1)), the rings with a
sentinel, calls it on random block tables (paged: pages shuffled over a cache
of twice as many, unowned entries poisoned, as ``decode_pages``) or
contiguous caches, runs it under ``mlir-runner`` and checks every ring word:

  row r (key tile·64 + r) of the stage, 16-byte chunk c at chunk c ^ (r & 7):
    key < length: the key's cache words, paged
                  (block_table[b·M + key // S]·S + key % S)·Hkv·D + h·D + 8c + e,
                  contiguous ((b·Hkv + h)·Nk + key)·D + 8c + e;
    key >= length: 0 (zero-filled);
  written by exactly one copy; every other stage untouched; no copy whose
  source chunk (zero-filled ones too) or destination lies out of bounds.

Command line (with ``PYTHONPATH=python``)::

  python3 -m flash_mlir.testing.decode_copies --d 128 --page-size 16
  python3 -m flash_mlir.testing.decode_copies --d 64 --contiguous
"""

import argparse
import dataclasses
import os
import sys
from typing import List, Optional, Sequence

import numpy as np

from flash_mlir.testing.cpu_case import (check_harness_cases, print_results,
                                         run_harness_module)
from flash_mlir.testing.decode_pages import PagesConfig
from flash_mlir.testing.decode_pages import make_case as make_pages_case

LOWERING = ["--convert-scf-to-cf", "--finalize-memref-to-llvm", "--convert-to-llvm",
            "--reconcile-unrealized-casts"]
BLOCK_KV = 64          # kSplitKVBlockKV
SENTINEL = -7          # ring words no copy may write
SIZE_NAMES = ("S", "M", "batch", "length", "tile_begin", "tile_end", "tile", "stage",
              "Hkv", "kv_head", "Nk", "plain")


@dataclasses.dataclass(frozen=True)
class CopiesConfig:
    """One compiled harness: what the kernel fixes at compile time."""
    d: int = 128
    paged: bool = True
    page_size: int = 0     # paged: a kernel for one page size (`_s<S>`), or 0
    stages: int = 3

    def pass_option(self) -> str:
        return "--flash-test-decode-copies=head-dim=%d paged=%d page-size=%d stages=%d" % (
            self.d, int(self.paged), self.page_size, self.stages)

    def short_id(self) -> str:
        form = ("s%d" % self.page_size if self.page_size else "anyS") if self.paged else "contiguous"
        return "D%d_%s_st%d" % (self.d, form, self.stages)

    @property
    def ring(self) -> int:
        return self.stages * BLOCK_KV * self.d


@dataclasses.dataclass
class CopiesCase:
    """One block's copy of tile `tile` of sequence `batch` (`length` keys)
    into stage `stage`; its part is tiles [tile_begin, tile_end)."""
    length: int
    tile_begin: int
    tile_end: int
    tile: int
    stage: int
    batch: int
    batches: int
    hkv: int
    kv_head: int
    plain: bool
    s: int = 0             # paged
    m: int = 0
    table: Optional[np.ndarray] = None
    num_pages: int = 0

    def short_id(self) -> str:
        where = "S%d_M%d" % (self.s, self.m) if self.table is not None else "Nk%d" % self.length
        return "%s_L%d_tile%d[%d-%d]_stage%d_h%d/%d%s" % (
            where, self.length, self.tile, self.tile_begin, self.tile_end, self.stage,
            self.kv_head, self.hkv, "_plain" if self.plain else "")

    def sizes(self) -> List[int]:
        return [self.s, self.m, self.batch, self.length, self.tile_begin, self.tile_end,
                self.tile, self.stage, self.hkv, self.kv_head, self.length, int(self.plain)]

    def cache_words(self, d: int) -> int:
        if self.table is not None:
            return self.num_pages * self.s * self.hkv * d
        return self.batches * self.hkv * self.length * d


def make_case(rng: np.random.Generator, cfg: CopiesConfig, length: int, s: int = 0,
              tiles_per_part: Optional[int] = None, part: Optional[int] = None,
              tile: str = "any", plain: Optional[bool] = None) -> CopiesCase:
    """A block's tile of a random part (or `part`): `tile` "any" (a random
    one of the part), "last" (the part's last) or "full" (a random one wholly
    inside the length); a random stage, kv-head among 1-3 and batch among 3;
    paged: a random block table as decode_pages makes it. `plain` (paged):
    the tile is issued without the zero-fill operand, only where it lies
    wholly inside the length (None: so whenever it does, half of the time)."""
    pages = make_pages_case(rng, PagesConfig(cfg.d, cfg.page_size, False, cfg.stages),
                            s or 1, length, tiles_per_part, part)
    last = pages.tile_end - 1
    if tile == "full" and (last + 1) * BLOCK_KV > length:
        last -= 1
    assert last >= pages.tile_begin
    tile = last if tile == "last" else int(rng.integers(pages.tile_begin, last + 1))
    full = (tile + 1) * BLOCK_KV <= length
    if plain is None:
        plain = cfg.paged and full and bool(rng.integers(0, 2))
    assert not plain or (cfg.paged and full)
    hkv = int(rng.integers(1, 4))
    c = CopiesCase(length, pages.tile_begin, pages.tile_end, tile,
                   int(rng.integers(0, cfg.stages)), pages.batch, 3, hkv,
                   int(rng.integers(0, hkv)), plain and cfg.paged)
    if cfg.paged:
        c.s, c.m, c.table, c.num_pages = s, pages.m, pages.table, pages.num_pages
    return c


def render_module(cfg: CopiesConfig, cases: Sequence[CopiesCase]) -> str:
    sig = ", ".join(["memref<?xi32>"] * 7)
    ring, hits = cfg.ring, 2 + 2 * cfg.ring
    lines = ["// Generated by flash_mlir.testing.decode_copies for %s" % cfg.short_id(),
             "module {"]
    for n, c in enumerate(cases):
        table = c.table if c.table is not None else np.zeros(1, dtype=np.int32)
        lines.append('  memref.global "private" constant @table%d : memref<%dxi32> = dense<[%s]>'
                     % (n, table.size, ", ".join(str(int(x)) for x in table)))
        lines.append('  memref.global "private" constant @sizes%d : memref<%dxi32> = dense<[%s]>'
                     % (n, len(SIZE_NAMES), ", ".join(str(x) for x in c.sizes())))
    lines += [
        "  func.func private @flash_decode_copies(%s)" % sig,
        "  func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}",
        # buf[i] = sign·(i + 1) for i < n, or `fill` when sign = 0.
        "  func.func @fill(%buf: memref<?xi32>, %sign: i32, %fill: i32) {",
        "    %c0 = arith.constant 0 : index",
        "    %c1 = arith.constant 1 : index",
        "    %one = arith.constant 1 : i32",
        "    %zero = arith.constant 0 : i32",
        "    %n = memref.dim %buf, %c0 : memref<?xi32>",
        "    %ordinal = arith.cmpi ne, %sign, %zero : i32",
        "    scf.for %i = %c0 to %n step %c1 {",
        "      %i32 = arith.index_cast %i : index to i32",
        "      %next = arith.addi %i32, %one : i32",
        "      %signed = arith.muli %next, %sign : i32",
        "      %value = arith.select %ordinal, %signed, %fill : i32",
        "      memref.store %value, %buf[%i] : memref<?xi32>",
        "    }",
        "    return",
        "  }",
        "  func.func @main() {",
        "    %plus = arith.constant 1 : i32",
        "    %minus = arith.constant -1 : i32",
        "    %none = arith.constant 0 : i32",
        "    %%sentinel = arith.constant %d : i32" % SENTINEL,
    ]
    for n, c in enumerate(cases):
        table = c.table.size if c.table is not None else 1
        words = c.cache_words(cfg.d)
        lines += [
            "    %%t%d = memref.get_global @table%d : memref<%dxi32>" % (n, n, table),
            "    %%t%d_d = memref.cast %%t%d : memref<%dxi32> to memref<?xi32>" % (n, n, table),
            "    %%z%d = memref.get_global @sizes%d : memref<%dxi32>" % (n, n, len(SIZE_NAMES)),
            "    %%z%d_d = memref.cast %%z%d : memref<%dxi32> to memref<?xi32>"
            % (n, n, len(SIZE_NAMES)),
        ]
        for name, size, sign, fill in (("k", words, "%plus", "%none"),
                                       ("v", words, "%minus", "%none"),
                                       ("sk", ring, "%none", "%sentinel"),
                                       ("sv", ring, "%none", "%sentinel"),
                                       ("h", hits, "%none", "%none")):
            lines += [
                "    %%%s%d = memref.alloc() : memref<%dxi32>" % (name, n, size),
                "    %%%s%d_d = memref.cast %%%s%d : memref<%dxi32> to memref<?xi32>"
                % (name, n, name, n, size),
                "    func.call @fill(%%%s%d_d, %s, %s) : (memref<?xi32>, i32, i32) -> ()"
                % (name, n, sign, fill),
            ]
        args = ", ".join("%%%s%d_d" % (name, n) for name in ("t", "k", "v", "sk", "sv", "h", "z"))
        lines.append("    func.call @flash_decode_copies(%s) : (%s) -> ()" % (args, sig))
        for name, size in (("sk", ring), ("sv", ring), ("h", hits)):
            lines += [
                "    %%%s%d_u = memref.cast %%%s%d : memref<%dxi32> to memref<*xi32>"
                % (name, n, name, n, size),
                "    func.call @printMemrefI32(%%%s%d_u) : (memref<*xi32>) -> ()" % (name, n),
            ]
        for name, size in (("k", words), ("v", words), ("sk", ring), ("sv", ring), ("h", hits)):
            lines.append("    memref.dealloc %%%s%d : memref<%dxi32>" % (name, n, size))
    lines += ["    return", "  }", "}", ""]
    return "\n".join(lines)


def expected_rings(cfg: CopiesConfig, c: CopiesCase):
    """The two rings after the copy, and how many copies wrote each word."""
    d, chunks = cfg.d, cfg.d // 8
    ring_k = np.full(cfg.ring, SENTINEL, dtype=np.int64)
    ring_v = ring_k.copy()
    count = np.zeros(cfg.ring, dtype=np.int64)
    stage0 = c.stage * BLOCK_KV * d
    for r in range(BLOCK_KV):
        key = c.tile * BLOCK_KV + r
        if key < c.length:
            if c.table is not None:
                row = int(c.table[c.batch * c.m + key // c.s]) * c.s + key % c.s
                base = row * c.hkv * d + c.kv_head * d
            else:
                base = ((c.batch * c.hkv + c.kv_head) * c.length + key) * d
        for chunk in range(chunks):
            at = stage0 + r * d + (chunk ^ (r & 7)) * 8
            for e in range(8):
                word = base + chunk * 8 + e + 1 if key < c.length else 0
                ring_k[at + e] = word
                ring_v[at + e] = -word
                count[at + e] += 1
    return ring_k, ring_v, count


def check_case(cfg: CopiesConfig, c: CopiesCase, ring_k, ring_v, hits) -> List[str]:
    """What the harness printed against the definition; the list of errors."""
    errors: List[str] = []
    hits = np.asarray(hits, dtype=np.int64)
    if hits[0]:
        errors.append("%d copies read outside the cache" % hits[0])
    if hits[1]:
        errors.append("%d copies wrote outside the ring" % hits[1])
    want_k, want_v, want_count = expected_rings(cfg, c)
    d = cfg.d
    for name, got, want in (("K", ring_k, want_k), ("V", ring_v, want_v),
                            ("K's write counts", hits[2:2 + cfg.ring], want_count),
                            ("V's write counts", hits[2 + cfg.ring:], want_count)):
        got = np.asarray(got, dtype=np.int64)
        bad = np.flatnonzero(got != want)
        if bad.size:
            w = int(bad[0])
            stage, rest = divmod(w, BLOCK_KV * d)
            errors.append("%s: %d words wrong, first stage %d row %d column %d: %d, expected %d"
                          % (name, bad.size, stage, rest // d, rest % d, got[w], want[w]))
    return errors


def execute(cfg: CopiesConfig, cases: Sequence[CopiesCase], flash_opt: str,
            timeout: float = 300.0, workdir: Optional[str] = None):
    """Compile and run every case in one module: ``(outputs, error, tmp,
    reproducer)``, per case the printed (K ring, V ring, hits)."""
    return run_harness_module(render_module(cfg, cases), "decode_copies",
                              [cfg.pass_option()] + LOWERING, flash_opt, 3, len(cases),
                              timeout, workdir)


def run(cfg: CopiesConfig, cases: Sequence[CopiesCase], flash_opt: str,
        timeout: float = 300.0, workdir: Optional[str] = None):
    """Run and check every case: ``(results, error)``, per case ``(ok, message)``."""
    return check_harness_cases(cases, execute(cfg, cases, flash_opt, timeout, workdir),
                               lambda c, *out: check_case(cfg, c, *out), workdir)


def standard_cases(cfg: CopiesConfig, seed: int = 0) -> List[CopiesCase]:
    """Tiles wholly inside the length (paged: with and without the zero-fill
    operand) and the last, ragged tile of a sequence (lengths 1, around a
    tile, a page boundary inside the tile); a middle and the last part of a
    cut sequence; paged: page sizes 1, 3, 5, 16, 48, 64, 256 (or the
    kernel's constant); every case a random stage, kv-head of 1-3 and batch."""
    rng = np.random.default_rng(seed)
    cases: List[CopiesCase] = []
    sizes = ([cfg.page_size] if cfg.page_size else [1, 3, 5, 16, 48, 64, 256]) if cfg.paged else [0]
    for s in sizes:
        for length in (1, 63, 64, 65, 200, 3 * max(s, 1) + 7, 1000):
            cases.append(make_case(rng, cfg, length, s, tile="last"))
        cases.append(make_case(rng, cfg, 1000, s, tile="full", plain=cfg.paged))
        cases.append(make_case(rng, cfg, 1000, s, tile="full", plain=False))
        cases.append(make_case(rng, cfg, 1000, s, tiles_per_part=4, part=1))
        cases.append(make_case(rng, cfg, 1000, s, tiles_per_part=4, part=3, tile="last"))
    return cases


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--contiguous", action="store_true")
    ap.add_argument("--page-size", type=int, default=0)
    ap.add_argument("--stages", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--flash-opt", default=os.environ.get("FLASH_OPT", "build/bin/flash-opt"))
    ap.add_argument("--workdir")
    args = ap.parse_args(argv)
    cfg = CopiesConfig(args.d, not args.contiguous, args.page_size, args.stages)
    return print_results(*run(cfg, standard_cases(cfg, args.seed), args.flash_opt,
                              workdir=args.workdir))


if __name__ == "__main__":
    sys.exit(main())
