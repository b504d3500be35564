"""The split-KV kernels' K/V tile copies, run on the CPU, against their definition.

``flash-opt --flash-test-decode-copies`` emits, with the same builder code as
the split kernels (``DecodeTileCopies``, SM80/DecodeCopies.h), every thread
of a block issuing one K/V tile into one stage of its shared-memory rings,
each 16-byte ``cp.async`` made a scalar copy that zero-fills past its source
size. ``flash_mlir.testing.decode_copies`` runs it under mlir-runner on
caches whose words hold their own indices and checks every ring word: the
key's cache row (paged through a random block table with poisoned unowned
entries, or contiguous), its chunk at the swizzled place, zero past the
length, each word written once, the other stages untouched, no copy reading
or writing out of bounds.

Run (from the repository root):
  /usr/bin/python3 -m pytest python/tests/test_decode_copies.py -q
"""

import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, os.pardir, os.pardir))
sys.path.insert(0, os.path.join(REPO_ROOT, "python"))

from flash_mlir.testing.decode_copies import (BLOCK_KV, CopiesConfig, check_case,  # noqa: E402
                                              expected_rings, run, standard_cases)
from flash_opt import flash_opt_path  # noqa: E402

# The kernels' copy forms at each head dimension (stages as sm_90a's split-KV
# schedule gives them: 3, and 2 at D = 256): paged for any S and for one page
# size (`_s16`, `_s64`: the page arithmetic folds; the copies are the same
# code), and contiguous.
CONFIGS = [
    CopiesConfig(d=128, paged=True, page_size=0),
    CopiesConfig(d=128, paged=True, page_size=16),
    CopiesConfig(d=128, paged=True, page_size=64),
    CopiesConfig(d=128, paged=False),
    CopiesConfig(d=64, paged=True, page_size=0),
    CopiesConfig(d=64, paged=False),
    CopiesConfig(d=256, paged=True, page_size=0, stages=2),
    CopiesConfig(d=256, paged=False, stages=2),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c.short_id() for c in CONFIGS])
def test_copies(cfg):
    seed = int(os.environ.get("FLASH_TEST_SEED", "0"))
    results, error = run(cfg, standard_cases(cfg, seed), flash_opt_path())
    assert error is None, error
    failures = [msg for ok, msg in results if not ok]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("paged", [True, False])
def test_cases_cover(paged):
    """Full tiles (paged: with and without the zero-fill operand) and ragged
    last tiles, a page boundary inside a tile, tiles of a later part, every
    stage of the ring, kv-heads past the first and more than one of them."""
    cfg = CopiesConfig(d=128, paged=paged)
    cases = standard_cases(cfg)
    full = [c for c in cases if (c.tile + 1) * BLOCK_KV <= c.length]
    ragged = [c for c in cases if c.tile * BLOCK_KV < c.length < (c.tile + 1) * BLOCK_KV]
    assert full and ragged
    if paged:
        assert any(c.plain for c in full) and any(not c.plain for c in full)
        assert not any(c.plain for c in ragged)
        assert any(c.s > 1 and (c.tile * BLOCK_KV) // c.s != (c.tile * BLOCK_KV + BLOCK_KV - 1) // c.s
                   and c.s % BLOCK_KV for c in cases)
    else:
        assert not any(c.plain for c in cases)
    assert any(c.tile_begin > 0 for c in cases)
    assert {c.stage for c in cases} == set(range(cfg.stages))
    assert any(c.kv_head > 0 for c in cases) and any(c.hkv > 1 for c in cases)


def test_check_can_fail():
    """check_case flags a word from the wrong row, a missing zero-fill, a
    word written twice and an out-of-bounds read."""
    cfg = CopiesConfig(d=64, paged=True)
    case = next(c for c in standard_cases(cfg) if c.length % BLOCK_KV)
    ring_k, ring_v, count = expected_rings(cfg, case)
    hits = np.concatenate([[0, 0], count, count])
    assert check_case(cfg, case, ring_k, ring_v, hits) == []
    stage0 = case.stage * BLOCK_KV * cfg.d
    wrong = ring_k.copy()
    wrong[stage0] += cfg.d                      # the next row's word
    assert check_case(cfg, case, wrong, ring_v, hits)
    last = stage0 + (BLOCK_KV - 1) * cfg.d      # the ragged tile's last row: zero
    assert ring_v[last] == 0
    unfilled = ring_v.copy()
    unfilled[last] = -1
    assert check_case(cfg, case, ring_k, unfilled, hits)
    twice = hits.copy()
    twice[2 + stage0] = 2
    assert check_case(cfg, case, ring_k, ring_v, twice)
    outside = hits.copy()
    outside[0] = 1
    assert check_case(cfg, case, ring_k, ring_v, outside)
