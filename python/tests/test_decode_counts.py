"""Which block of a split-KV row tile merges its parts (the split kernels'
fused-merge counters), run on the CPU against the protocol's definition.

``flash-opt --flash-test-decode-counts`` emits, with the same builder code as
the split kernels (``buildFusedMergeCounts`` in SM80/DecodeMerge.h), the
counting each block does once its partials are written: on its group's
counter (or, one level, the unit's), the last block merging; in two levels,
the group's merger then counting the group on the unit's counter, whose last
merges the groups; each merger resetting what it finished.
``flash_mlir.testing.decode_counts`` runs the blocks of 2-3 work units one
after another in finishing orders (random, in order, backwards, group by
group), each order twice on the same counters (a second launch or a graph
replay), and checks every merge made and by which block, and that the
counters are zero after each launch and untouched past the units' stride.

Run (from the repository root):
  /usr/bin/python3 -m pytest python/tests/test_decode_counts.py -q
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, os.pardir, os.pardir))
sys.path.insert(0, os.path.join(REPO_ROOT, "python"))

from flash_mlir.testing.decode_counts import (MERGE_ALL, MERGE_GROUP_KIND, MERGE_GROUPS,  # noqa: E402
                                              check_case, execute, expected_log, make_case,
                                              run, standard_cases)
from flash_opt import flash_opt_path  # noqa: E402


def test_counts():
    seed = int(os.environ.get("FLASH_TEST_SEED", "0"))
    results, error = run(standard_cases(seed), flash_opt_path())
    assert error is None, error
    failures = [msg for ok, msg in results if not ok]
    assert not failures, "\n".join(failures)


def test_reference_merges_each_once():
    """The reference: one merge of all parts a unit in one level; in two, one
    merge a group (covering every part once) and one of the groups, made by
    the block that finishes the unit last."""
    rng = np.random.default_rng(1)
    one = make_case(rng, 32, 132, 3, "random")
    assert sorted(r[0] for r in expected_log(one)) == [0, 1, 2]
    assert all(r[2] == MERGE_ALL for r in expected_log(one))
    two = make_case(rng, 132, 132, 2, "random")
    log = expected_log(two)
    for u in range(2):
        mine = [r for r in log if r[0] == u]
        groups = [r for r in mine if r[2] == MERGE_GROUP_KIND]
        assert sorted(p for r in groups for p in range(r[3], r[3] + r[4])) == list(range(132))
        final = [r for r in mine if r[2] == MERGE_GROUPS]
        assert len(final) == 1 and final[0] == (u, mine[-1][1], MERGE_GROUPS, 9, 15)
        last = max(i for i, b in enumerate(two.order) if b[0] == u)
        assert two.order[last] == (u, final[0][1])


def test_check_can_fail():
    """The checker passes the harness's output and rejects a counter left
    nonzero, a word touched past the units' counters, a merge missing, and
    a merge made by another block."""
    case = make_case(np.random.default_rng(5), 47, 128, 2, "random")
    outputs, error, _, _ = execute([case], flash_opt_path())
    assert error is None, error
    counters, log = (np.asarray(x, dtype=np.int64) for x in outputs[0])
    assert not check_case(case, counters, log)
    bad = counters.copy()
    bad[3] = 1
    assert any("left nonzero" in e for e in check_case(case, bad, log))
    bad = counters.copy()
    bad[-1] = 1
    assert any("past the units'" in e for e in check_case(case, bad, log))
    bad = log.copy()
    bad[0] -= 1
    assert any("merges:" in e for e in check_case(case, counters, bad))
    bad = log.copy()
    bad[2] = (bad[2] + 1) % 47                      # the first record's part
    assert any("merges:" in e for e in check_case(case, counters, bad))
