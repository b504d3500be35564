"""The paged decode kernels' page arithmetic, run on the CPU, against its definition.

``flash-opt --flash-test-decode-pages`` emits, with the same builder code as
the paged split kernels (``DecodePageRows``), where every thread of a block
reads: the block-table window of its part and the cache row of each key of
its tiles, in each form the kernels use (the loop's lookups through the
window or the table, the prologue's from the table, the separate merge's
one lookup per 16 keys; any S, or S a constant as in the `_s16`, `_s64`,
`_separate_s16` and `_separate_s64` kernels, which look a page up once per 16
keys or, with pages of 64 slots or more, once a tile).
``flash_mlir.testing.decode_pages`` runs it under mlir-runner on random
block tables whose unowned entries are poisoned and checks each row against
``block_table[b·M + t // S]·S + t % S`` (keys clamped to the part's last;
the kernels for S = 16 or 32: rows past the part in one of its pages), and
that no table entry past the sequence's own pages is read.

Run (from the repository root):
  /usr/bin/python3 -m pytest python/tests/test_decode_pages.py -q
"""

import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, os.pardir, os.pardir))
sys.path.insert(0, os.path.join(REPO_ROOT, "python"))

from flash_mlir.testing.decode_pages import (PagesConfig, check_case, execute,  # noqa: E402
                                             make_case, run, standard_cases)
from flash_opt import flash_opt_path  # noqa: E402

# The kernels' page forms at each head dimension (stages as the split-KV
# schedule gives them on sm_90a: 3, and 2 at D = 256): any S, S a constant
# below a tile (`_s16`, `_separate_s16`: one lookup per 16 keys; 32 with
# fused-page-sizes) and of a tile or more (`_s64`, `_separate_s64`: one
# lookup a tile), and the separate merge's grouped lookups (any S).
CONFIGS = [
    PagesConfig(d=128, page_size=0),
    PagesConfig(d=128, page_size=16),
    PagesConfig(d=128, page_size=32),
    PagesConfig(d=128, page_size=64),
    PagesConfig(d=128, page_size=256),
    PagesConfig(d=128, grouped=True),
    PagesConfig(d=64, page_size=0),
    PagesConfig(d=64, page_size=16),
    PagesConfig(d=64, page_size=64),
    PagesConfig(d=64, grouped=True),
    PagesConfig(d=256, page_size=0, stages=2),
    PagesConfig(d=256, page_size=16, stages=2),
    PagesConfig(d=256, grouped=True, stages=2),
    # sm_90a's D = 128 kernels aim at one block an SM: a window of 1024.
    PagesConfig(d=128, page_size=0, window=1024),
    PagesConfig(d=128, page_size=16, window=1024),
    PagesConfig(d=128, page_size=64, window=1024),
    PagesConfig(d=128, grouped=True, window=1024),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c.short_id() for c in CONFIGS])
def test_page_rows(cfg):
    seed = int(os.environ.get("FLASH_TEST_SEED", "0"))
    results, error = run(cfg, standard_cases(cfg, seed), flash_opt_path())
    assert error is None, error
    failures = [msg for ok, msg in results if not ok]
    assert not failures, "\n".join(failures)


def test_cases_reach_every_branch():
    """The standard cases cut sequences, exceed the window or fill it
    exactly, end on page and tile boundaries, and (grouped) take both
    prologue forms."""
    cfg = PagesConfig(d=128, grouped=True)
    cases = standard_cases(cfg)
    assert any(c.tile_begin > 0 for c in cases)
    def pages_of(cases):
        return [(min(c.tile_end * 64, c.length) - 1) // c.s - c.tile_begin * 64 // c.s + 1
                for c in cases]

    part_pages = pages_of(cases)
    assert any(n > 512 for n in part_pages) and 512 in part_pages
    wide = pages_of(standard_cases(PagesConfig(d=128, grouped=True, window=1024)))
    assert any(n > 1024 for n in wide) and 1024 in wide and any(512 < n < 1024 for n in wide)
    for size in {c.s for c in cases}:     # a part past page 0 of 3 pages or more
        assert any(c.s == size and c.tile_begin * 64 // c.s > 0 and n >= 3
                   for c, n in zip(cases, part_pages))
    assert any(c.length % c.s == 0 for c in cases) and any(c.length % 64 == 0 for c in cases)
    fast = [c for c in cases if c.s >= 16 and c.s & (c.s - 1) == 0]
    assert any(min(c.tile_begin + 2, c.tile_end) * 64 <= c.length for c in fast)
    assert any(min(c.tile_begin + 2, c.tile_end) * 64 > c.length for c in fast)


def test_check_can_fail():
    """The checker passes the harness's output and rejects it with a row one
    slot off, and as the output for a shorter sequence (the part's last key,
    its pages and its last tile's rows differ)."""
    cfg = PagesConfig(d=128, page_size=0)
    case = make_case(np.random.default_rng(1), cfg, 16, 100)
    outputs, error, _, _ = execute(cfg, [case], flash_opt_path())
    assert error is None, error
    out, window = outputs[0]
    assert not check_case(cfg, case, out, window)
    bad = out.copy()
    bad[8 + 512 + 5] += 1                      # mode 0, tile 0, one key's row
    assert any("mode 0" in e for e in check_case(cfg, case, bad, window))
    shorter = make_case(np.random.default_rng(1), cfg, 16, 100)
    shorter.length = 90                        # same table, one page fewer owned
    errors = check_case(cfg, shorter, out, window)
    assert any("header word 2" in e for e in errors)          # partLastKey
    assert any("mode 0 tile 1" in e for e in errors)


def test_check_of_rows_past_the_part():
    """A kernel for S = 16 (a lookup per 16 keys): rows of keys past the part
    may name any slot of the part's pages, but not a slot of another page."""
    cfg = PagesConfig(d=128, page_size=16)
    case = make_case(np.random.default_rng(2), cfg, 16, 40)   # keys 40-63 past the part
    outputs, error, _, _ = execute(cfg, [case], flash_opt_path())
    assert error is None, error
    out, window = outputs[0]
    assert not check_case(cfg, case, out, window)
    rows = out[8 + 512: 8 + 512 + 64]                   # mode 0, tile 0: row r, pass p at r·8 + p
    past = 7 * 8 + 6                                    # row 7 of pass 6: key 55
    owned = {int(case.table[case.batch * case.m + j]) for j in range(3)}
    other = next(page for page in range(case.num_pages) if page not in owned)
    bad = out.copy()
    bad[8 + 512 + past] = other * 16 + int(rows[past]) % 16
    assert any("past the part" in e for e in check_case(cfg, case, bad, window))
    bad = out.copy()
    bad[8 + 512 + 3 * 8 + 2] += 1                       # key 19, inside the part: exact
    assert any("mode 0" in e and "past" not in e for e in check_case(cfg, case, bad, window))
