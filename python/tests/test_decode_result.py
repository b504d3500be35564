"""What a split-KV kernel's block writes from its combined state, run on the
CPU, against float64.

``flash-opt --flash-test-decode-result`` emits, with the same builder code as
the split kernels (``writeSplitResult`` in SM80/DecodeMerge.h), in host-lanes
mode, what a block writes once its warps are combined: O in the element type
and the LSE when its row tile has one part, the part's f32 partial O and LSE
otherwise, for the rows of its tile inside the group. Every warp of the
``slices`` form (the shipped plans) writes its quarter of the columns and
warp 0 the LSE (with ``shared``, several parts' partials at the tile's rows
of the pair merge's shared memory); in the ``first-warp`` form (sm_80
schedules of many packed rows) warp 0 writes everything. ``flash_mlir.testing.decode_result`` runs it
under mlir-runner on random states and sizes (one part and several; whole
and ragged row tiles; rows no key reached) and checks every word of the four
buffers: the ones the block writes against float64, the others untouched.

Run (from the repository root):
  /usr/bin/python3 -m pytest python/tests/test_decode_result.py -q
"""

import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, os.pardir, os.pardir))
sys.path.insert(0, os.path.join(REPO_ROOT, "python"))

from flash_mlir.testing.decode_result import (ResultConfig, check_case,  # noqa: E402
                                              execute, expected, make_case, run,
                                              standard_cases)
from flash_mlir.testing.cpu_case import words_to_f32  # noqa: E402
from flash_opt import flash_opt_path  # noqa: E402

# Every Dv the decode kernels take, both element types, with and without the
# LSE, in both forms (slices at the shipped plans' m = 1 and at D = 64 m = 2;
# first-warp where sm_80 builds it, D = 128 m = 2 and D = 64 m = 4).
CONFIGS = [
    ResultConfig(128, 1, "slices", "bf16", True),
    ResultConfig(64, 1, "slices", "f16", False),
    ResultConfig(256, 1, "slices", "bf16", True),
    ResultConfig(64, 2, "slices", "f16", True),
    ResultConfig(128, 2, "first-warp", "bf16", True),
    ResultConfig(64, 4, "first-warp", "f16", False),
    # sm_90a's fused split kernels where two parts merge in a cluster.
    ResultConfig(128, 1, "slices", "bf16", True, shared=True),
    ResultConfig(64, 1, "slices", "f16", False, shared=True),
    ResultConfig(256, 1, "slices", "bf16", True, shared=True),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c.short_id() for c in CONFIGS])
def test_result(cfg):
    seed = int(os.environ.get("FLASH_TEST_SEED", "0"))
    results, error = run(cfg, standard_cases(cfg, seed), flash_opt_path())
    assert error is None, error
    failures = [msg for ok, msg in results if not ok]
    assert not failures, "\n".join(failures)


def test_cases_cover():
    """The cases reach what the writer decides: one part and several, rows
    past the group (ragged tiles leave some of the tile's rows unwritten),
    rows no key reached (O 0, LSE -inf), a group that does not start at row
    0, a part other than 0, and a row tile of several parts that is not the
    group's first."""
    cfg = ResultConfig(128, 1, "slices", "bf16", True)
    cases = standard_cases(cfg, 0)
    assert {c.sizes["num_splits"] == 1 for c in cases} == {True, False}
    tile = 16 * cfg.m_tiles * cfg.d                    # the row tile's elements
    for c in cases:
        want = expected(cfg, c)
        o = want["o"] if c.sizes["num_splits"] == 1 else want["partial_o"]
        words = len(o) * (2 if c.sizes["num_splits"] == 1 else 1)
        if "ragged" in c.name:
            assert 0 < words < tile, c.name
        else:
            assert words == tile, c.name
        lses = [v for v, _ in (want["lse"] or want["partial_lse"]).values()]
        if "empty" in c.name:
            assert any(np.isneginf(v) for v in lses), c.name
        assert all(not np.isnan(v) for v in lses)
    assert any(c.sizes["group_row0"] > 0 for c in cases)
    assert any(c.sizes["part"] > 0 for c in cases if c.sizes["num_splits"] > 1)
    # shared=True places a part's rows from the row tile's first row: a case
    # of several parts whose tile is not the group's first tells it apart.
    assert any(c.sizes["tile_row0"] > 0 for c in cases if c.sizes["num_splits"] > 1)


def test_check_can_fail():
    """The checker passes the harness's output and rejects an O value off by
    a 16-bit ulp, a 0 of a row no key reached written as the least bf16, a partial LSE off by 1e-4, a word written past the group,
    a word left unwritten and a NaN."""
    cfg = ResultConfig(128, 1, "slices", "bf16", True)
    rng = np.random.default_rng(3)
    one = make_case(rng, cfg, "one", 1, True, True)
    parts = make_case(rng, cfg, "parts", 3, True, False)
    outputs, error, _, _ = execute(cfg, [one, parts], flash_opt_path())
    assert error is None, error
    o, lse, po, pl = (np.asarray(x, dtype=np.int64) for x in outputs[0])
    assert not check_case(cfg, one, o, lse, po, pl)
    o2, lse2, po2, pl2 = (np.asarray(x, dtype=np.int64) for x in outputs[1])
    assert not check_case(cfg, parts, o2, lse2, po2, pl2)

    written = np.flatnonzero(o != -7)
    bad = o.copy()
    i = written[np.argmax(((bad[written] >> 16) & 0x7F80) != 0)]    # a nonzero high half
    bad[i] += 1 << 16                                               # one bf16 ulp more
    assert any("o:" in e and "wrong" in e for e in check_case(cfg, one, bad, lse, po, pl))
    zero = written[np.flatnonzero(o[written] == 0)[0]]
    bad = o.copy()
    bad[zero] = 1
    assert any("o:" in e and "wrong" in e for e in check_case(cfg, one, bad, lse, po, pl))
    bad = pl2.copy()
    j = [k for k in np.flatnonzero(pl2 != -7) if np.isfinite(words_to_f32(pl2[k:k + 1])[0])][0]
    f = words_to_f32(pl2[j:j + 1])[0]
    bad[j] = int(np.float32(f + 1e-4 * max(abs(f), 1.0)).view("<u4"))
    assert any("partial_lse:" in e for e in check_case(cfg, parts, o2, lse2, po2, bad))
    stray = [k for k in range(len(po2)) if po2[k] == -7][0]
    bad = po2.copy()
    bad[stray] = 0
    assert any("must not write" in e for e in check_case(cfg, parts, o2, lse2, bad, pl2))
    bad = o.copy()
    bad[written[0]] = -7
    assert any("not written" in e for e in check_case(cfg, one, bad, lse, po, pl))
    bad = po2.copy()
    bad[np.flatnonzero(po2 != -7)[5]] = 0x7FC00000
    assert any("wrong" in e for e in check_case(cfg, parts, o2, lse2, bad, pl2))
