"""The split-KV kernels' combine of their four warps, run on the CPU, against
a float64 combine.

``flash-opt --flash-test-decode-combine`` emits, with the same builder code as
the split kernels (``storeWarpCombineWords``, ``combineWarpSlices``,
``combineIntoFirstWarp`` in SM80/DecodeMerge.h), the combine of the warps'
online-softmax states of one row tile after their K/V loops: every warp's
words into the exchange buffer, then either every warp a quarter of the
columns (``combine=slices``, the shipped plans' form) or warp 0 everything
(``combine=first-warp``, sm_80 schedules of many packed rows).
``flash_mlir.testing.decode_combine`` runs it under mlir-runner on random
states (warps that saw no key of a row, a row no warp saw, one warp's maximum
far above the rest, equal maxima) and checks each combining thread's common
maxima, row sums and accumulator against float64.

Run (from the repository root):
  /usr/bin/python3 -m pytest python/tests/test_decode_combine.py -q
"""

import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, os.pardir, os.pardir))
sys.path.insert(0, os.path.join(REPO_ROOT, "python"))

from flash_mlir.testing.decode_combine import (CombineConfig, check_case,  # noqa: E402
                                               combine_reference, execute, make_case, run,
                                               standard_cases)
from flash_opt import flash_opt_path  # noqa: E402

# Every Dv the decode kernels take with the row tiles they allow (m ≤ 256/Dv),
# in both forms: the shipped plans combine in slices at m = 1; the first-warp
# form is what sm_80 builds for D = 64 m = 4 and D = 128 m = 2.
CONFIGS = [
    CombineConfig(128, 1, "slices"),
    CombineConfig(64, 1, "slices"),
    CombineConfig(256, 1, "slices"),
    CombineConfig(64, 2, "slices"),
    CombineConfig(128, 2, "first-warp"),
    CombineConfig(64, 4, "first-warp"),
    CombineConfig(256, 1, "first-warp"),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c.short_id() for c in CONFIGS])
def test_combine(cfg):
    seed = int(os.environ.get("FLASH_TEST_SEED", "0"))
    results, error = run(cfg, standard_cases(cfg, seed), flash_opt_path())
    assert error is None, error
    failures = [msg for ok, msg in results if not ok]
    assert not failures, "\n".join(failures)


def test_cases_rescale():
    """The cases make the combine do work: factors below 1 (and some that
    vanish), warps and a row with no key, and every value finite."""
    cfg = CombineConfig(128, 1, "slices")
    rng = np.random.default_rng(0)
    random, empty = make_case(rng, cfg, "random"), make_case(rng, cfg, "empty")
    spread = make_case(rng, cfg, "spread")
    common, l, _, acc, _ = combine_reference(cfg, random)
    lane_m = np.repeat(random.m, 4, axis=1)
    assert np.mean(lane_m < common) > 0.5          # most warps rescaled
    common_e, l_e, _, acc_e, _ = combine_reference(cfg, empty)
    assert np.isneginf(common_e[0, 0]) and l_e[0, 0] == 0.0
    assert np.isfinite(common_e[4, 0]) and np.isneginf(np.repeat(empty.m, 4, axis=1)[1:, 4, 0]).all()
    _, l_s, _, _, _ = combine_reference(cfg, spread)
    assert np.all(np.isfinite(l)) and np.all(np.isfinite(acc)) and np.all(np.isfinite(l_s))


def test_check_can_fail():
    """The checker passes the harness's output and rejects a common maximum
    one ulp off, a row sum off by 1e-4 relative, an accumulator register of
    the wrong column tile, a word left unwritten and a NaN."""
    cfg = CombineConfig(128, 1, "slices")
    case = make_case(np.random.default_rng(5), cfg, "random")
    outputs, error, _, _ = execute(cfg, [case], flash_opt_path())
    assert error is None, error
    (words,) = outputs[0]
    words = np.asarray(words, dtype=np.int64)
    assert not check_case(cfg, case, words)
    rows = cfg.rows

    def at(warp, word, lane):
        return (warp * cfg.out_words + word) * 32 + lane

    def bumped(i, relative):
        f = words[i:i + 1].astype("<u4").view("<f4").astype(np.float64)
        return int(np.float32(f[0] * (1 + relative)).view("<u4"))

    bad = words.copy()
    bad[at(1, 0, 5)] += 1
    assert any("M:" in e for e in check_case(cfg, case, bad))
    bad = words.copy()
    bad[at(2, rows, 9)] = bumped(at(2, rows, 9), 1e-4)
    assert any(" l:" in e for e in check_case(cfg, case, bad))
    bad = words.copy()
    bad[at(3, 2 * rows, 0):at(3, 2 * rows, 0) + 32] = words[at(2, 2 * rows, 0):at(2, 2 * rows, 0) + 32]
    assert any("warp 3 acc" in e for e in check_case(cfg, case, bad))
    bad = words.copy()
    bad[at(0, 3, 31)] = -7
    assert any("not written" in e for e in check_case(cfg, case, bad))
    bad = words.copy()
    bad[at(0, 2 * rows + 1, 3)] = 0x7FC00000
    assert any("NaN" in e for e in check_case(cfg, case, bad))
