"""decode_check's case lists (no GPU): --page-sizes replaces the paged cases' page sizes."""

import math
import os
import pathlib
import shutil
import subprocess

import pytest

from flash_mlir.tools import decode_check


def test_default_page_sizes():
    cases = decode_check.paged_cases(quick=False)
    assert {c[7] for c in cases[:27]} == {16, 64, 256}
    assert len(cases) == 31  # 3 D x 3 S x 3 forms + 4 extra cases


def test_page_sizes_option():
    cases = decode_check.paged_cases(quick=False, pages=(8, 48))
    main = cases[:18]
    assert {c[7] for c in main} == {8, 48}
    assert len(cases) == 18 + 4
    # The lengths straddle the page: S - 1, S, S + 1.
    import random
    lengths = decode_check.lengths_for(48, 1, random.Random(0))
    assert {47, 48, 49} <= set(lengths)


def test_row_tile_cases():
    """The rows check's cases (compile --decode-rows 64 plans: on sm_80 the
    kernels whose warp 0 combines the warps alone): D = 64 and 128, paged
    and contiguous, full wide row tiles (64 rows at D = 64, 32 at D = 128),
    partial ones, two a kv-head, GQA with Hkv > 1, causal Nq > 1, and
    lengths of none, one part and many."""
    cases = decode_check.row_tile_cases()
    rows = {}
    for op, dtype, d, hq, hkv, nq, causal, lse, page, lengths in cases:
        assert op in ("paged", "split") and dtype in ("bf16", "f16")
        assert hq % hkv == 0 and (page > 0) == (op == "paged")
        assert nq <= 16 and (op == "paged" or len(lengths) == 1)  # split: one Nk
        rows.setdefault((op, d), set()).add(hq // hkv * nq)
        # The key's plans exist in a bundle of --causal both --lse both.
        assert isinstance(causal, bool) and isinstance(lse, bool)
    for op in ("paged", "split"):
        for d, tile in ((64, 64), (128, 32)):
            r = rows[(op, d)]
            assert tile in r                                           # a full tile
            assert any(x % tile and x > tile // 2 for x in r)          # a partial one
            assert any(x > tile for x in r)                            # two tiles
    assert any(hkv > 1 for _, _, _, _, hkv, *_ in cases)
    assert any(nq > 1 and causal for _, _, _, _, _, nq, causal, *_ in cases)
    lengths = [n for case in cases for n in case[-1]]
    assert 0 in lengths and 1 in lengths and max(lengths) > 32 * 64 * 8
    small = decode_check.row_tile_cases(small=True)
    assert len(small) == 2 and {c[2] for c in small} == {64, 128}
    assert {c[0] for c in small} == {"paged", "split"}


def test_default_checks_include_rows():
    """Every check runs by default, the row tiles' too (run on the H200 since
    the twenty-third session) and the kernels for any S at S = 16 and 64
    (anypage, since the thirty-second) and the chains of calls (since the
    forty-first)."""
    only = decode_check.parser().parse_args(["--bundles", "b"]).only.split(",")
    assert only == ["paged", "anypage", "split", "many", "peaks", "graph", "capture", "chain",
                    "rows"]


def _parts(lengths, hkv, row_tiles, max_splits, sms, per_sm):
    """The parts of each sequence as the compiler's split rule counts them
    (flash-opt --flash-test-split-kv: Target/SplitKV.h on integers), 64-key
    tiles as the decode kernels take, aiming at `per_sm` blocks an SM (the
    plan's, as flash-kernel-forms reports it)."""
    from cpp_constants import FLASH_OPT
    spec = (f"batch={len(lengths)} kv-heads={hkv} row-tiles={row_tiles} "
            f"keys={','.join(map(str, lengths))} block-kv=64 sms={sms} max-splits={max_splits} "
            f"blocks-per-sm={per_sm}")
    out = subprocess.run([FLASH_OPT, "-", f"--flash-test-split-kv={spec}", "-o", os.devnull],
                         input="module {}\n", capture_output=True, text=True, check=True).stdout
    fields = [dict(f.split("=") for f in line.split()) for line in out.splitlines()]
    assert [int(f["keys"]) for f in fields] == list(lengths)
    return [int(f["splits"]) for f in fields]


def _merges(arch, cases, sms=132):
    """{merge: {pattern}}: which merge each case's sequences of two parts or
    more take on `arch` ('separate', or the fused merge's 'one batch',
    'batches' (one level, several batches), 'two levels'); the pattern is the
    peaks case's score shape (the many-parts cases' LSE flag otherwise)."""
    from cpp_constants import SPLIT_KV
    from flash_mlir.compiler.compile import DECODE_MAX_SPLITS
    c = SPLIT_KV[arch]
    taken = {}
    for op, dtype, d, hq, hkv, nq, causal, pattern, page, lengths in cases:
        row_tiles = math.ceil(hq // hkv * nq / 16)  # the shipped plans' 16-row tiles
        work_units = len(lengths) * hkv * row_tiles
        per_sm = c["blocks_per_sm"][str(d)]
        parts = _parts(lengths, hkv, row_tiles, DECODE_MAX_SPLITS[arch], sms, per_sm)
        # Grid x (splitKVGridParts: the sizes, the SMs and the cache's
        # capacity, make_paged's M·S or the one Nk): the pair merge's
        # clusters where it is 2 (sm_90a's fused split kernels).
        grid_x = 1 if 16 * work_units >= 15 * sms else \
            max(min(per_sm * sms // work_units, DECODE_MAX_SPLITS[arch]), 1)
        capacity = (max(max(1, math.ceil(n / page)) for n in lengths) + 1) * page \
            if op == "paged" else lengths[0]
        grid_x = min(grid_x, max(math.ceil(capacity / 64) // 2, 1))
        for n in parts:
            if n < 2:
                continue
            if arch == "sm_90a" and grid_x == 2 and work_units > c["separate_merge_bound"]:
                merge = "pairs"
                pattern = (pattern, hkv > 1, row_tiles > 1, op, d,
                           min(parts) < 2 and 0 in lengths)
            elif work_units <= c["separate_merge_bound"]:
                merge = "separate"
            elif n > c["merge_direct"]:
                merge = "two levels"
            elif n > c["merge_batch"][str(d)]:
                merge = "batches"
            else:
                merge = "one batch"
            taken.setdefault(merge, set()).add(pattern)
    return taken


def test_merge_cases_reach_every_merge():
    """The many-parts and merge-peaks cases reach every merge a call can take
    on 132 SMs: on sm_90a the separate merge, the fused merge in one batch
    and in several (calls of 9 to 15 work units) and the pair merge (grid x
    = 2); on sm_80 the fused merge in
    one batch, several batches and two levels; the merges of several batches
    and of two levels each with parts whose LSEs rise along the sequence (a
    batch that raises the running maximum)."""
    many = decode_check.many_parts_cases()
    peaks = decode_check.merge_peak_cases()
    sm90 = _merges("sm_90a", many + peaks)
    assert set(sm90) == {"separate", "one batch", "batches", "pairs"}
    # The capacity cases: the pair merge where only the capacity makes grid x
    # 2 (the SMs allow 5), and the separate merge under a grid the capacity sets.
    capacity = decode_check.capacity_cases()
    assert set(_merges("sm_90a", capacity)) == {"pairs", "separate"}
    assert set(_merges("sm_90a", [c for c in capacity if len(c[-1]) == 24])) == {"pairs"}
    assert "ramp" in _merges("sm_90a", peaks)["batches"]
    # The pair merge: paged and contiguous at D = 64, 128 and 256, GQA 32/8,
    # two row tiles a kv-head, a call with sequences of one part and of no
    # key beside those of two, the peak in either part.
    pairs = sm90["pairs"]
    assert {(op, d) for _, _, _, op, d, _ in pairs} >= \
        {("paged", 64), ("paged", 128), ("split", 128), ("split", 256)}
    assert any(p[1] for p in pairs) and any(p[2] for p in pairs) and any(p[5] for p in pairs)
    assert {"early", "late"} <= {p[0] for p in pairs}
    sm80 = _merges("sm_80", many + peaks)
    assert set(sm80) == {"one batch", "batches", "two levels"}
    sm80_peaks = _merges("sm_80", peaks)
    assert "ramp" in sm80_peaks["batches"] and "ramp" in sm80_peaks["two levels"]


def test_chain_cases_reach_both_merges():
    """The chains (calls back to back, each split kernel launched behind the
    kernel before it on sm_90a) run, paged and contiguous, calls of the
    separate merge (its split kernel and the merge kernel) and of the fused
    merge with several parts, on 132 SMs; the small list one of each form."""
    def as_cases(cases):
        return [("paged" if paged else "split", "bf16", d, hq, hkv, 1, False, label, page,
                 [n] * b) for label, paged, d, hq, hkv, b, n, page in cases]
    cases = decode_check.chain_cases()
    for form in ("paged", "contiguous"):
        taken = _merges("sm_90a", as_cases([c for c in cases if c[0] == form]))
        assert "separate" in taken and {"one batch", "batches"} & set(taken), (form, taken)
    small = decode_check.chain_cases(small=True)
    assert {c[0] for c in small} == {"paged", "contiguous"}


EARLY_COPY = pathlib.Path(decode_check.__file__).with_name("early_copy.ptx")


def test_early_copy_triggers_before_it_copies():
    """The chains' kernel between calls (early_copy.ptx) triggers its
    dependents first, then waits on %globaltimer, then loads and stores the
    words: a dependent that does not wait reads the query before it is
    there."""
    body = EARLY_COPY.read_text().split(".visible .entry early_copy(")[1]
    order = [body.index(s) for s in ("griddepcontrol.launch_dependents;", "%globaltimer",
                                     "ld.global.u32", "st.global.u32")]
    assert order == sorted(order)
    assert body.count("griddepcontrol") == 1


@pytest.mark.skipif(not (shutil.which("ptxas") or pathlib.Path("/usr/local/cuda/bin/ptxas").exists()),
                    reason="needs CUDA's ptxas")
def test_early_copy_assembles(tmp_path):
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    subprocess.run([ptxas, "-arch=sm_90a", str(EARLY_COPY), "-o", str(tmp_path / "e.cubin")],
                   check=True, capture_output=True)
