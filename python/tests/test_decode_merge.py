"""The decode kernels' merge of parts, run on the CPU, against a float64 merge.

``flash-opt --flash-test-decode-merge`` emits, with the same builder code as
the split kernels' fused merge (``buildMergeRow``, ``buildMergeGroups``), the
merge of a row's parts by their LSE: batches of parts loaded together with a
running maximum, parts that saw no key (LSE −inf, weight 0), rows none of
whose parts did (O = 0, LSE = −inf), and beyond 32 parts two levels (each
group into its first part's slot, then the groups); with ``form=kernel``,
sm_90a's separate merge kernel (``buildMergeKernelSums``,
``buildMergeKernelCombine``: 128 threads each summing every 16th part, the
first group combining the groups; rows of one part left alone); with
``form=pair``, sm_90a's pair merge (``buildPairMergeRows``: two parts, the
rows of a tile shared by a cluster's two blocks' warps).
``flash_mlir.testing.decode_merge`` runs it under mlir-runner on random
partials and checks O (16-bit), LSE and the partial slots against a float64
merge.

Run (from the repository root):
  /usr/bin/python3 -m pytest python/tests/test_decode_merge.py -q
"""

import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, os.pardir, os.pardir))
sys.path.insert(0, os.path.join(REPO_ROOT, "python"))

from flash_mlir.testing.decode_merge import (MergeConfig, check_case, execute,  # noqa: E402
                                             groups_of, make_case, run, standard_cases)
from flash_opt import flash_opt_path  # noqa: E402

# Every Dv the decode kernels take (a batch of 32, 16 and 8 parts), both
# 16-bit types, with and without the LSE; sm_90a's separate merge kernel
# (form "kernel": 2, 4 and 8 slices of 32 columns) and its pair merge (form
# "pair": 2, 4 and 8 columns a lane, in one or two loads of 4).
CONFIGS = [
    MergeConfig("bf16", 128, True),
    MergeConfig("f16", 128, False),
    MergeConfig("bf16", 64, True),
    MergeConfig("f16", 256, True),
    MergeConfig("bf16", 256, False),
    MergeConfig("bf16", 128, True, "kernel"),
    MergeConfig("f16", 64, False, "kernel"),
    MergeConfig("bf16", 256, True, "kernel"),
    MergeConfig("bf16", 128, True, "pair"),
    MergeConfig("f16", 64, False, "pair"),
    MergeConfig("bf16", 256, True, "pair"),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c.short_id() for c in CONFIGS])
def test_merge(cfg):
    seed = int(os.environ.get("FLASH_TEST_SEED", "0"))
    results, error = run(cfg, standard_cases(cfg, seed), flash_opt_path())
    assert error is None, error
    failures = [msg for ok, msg in results if not ok]
    assert not failures, "\n".join(failures)


def test_groups_are_the_kernels():
    """The reference's groups: one level up to 32 parts; beyond, balanced
    groups of at most 16 that cover every part once (33 parts: 11 + 11 + 11;
    132: 9 groups of 15 and a last of 12)."""
    assert groups_of(32) == [(0, 32)]
    assert groups_of(33) == [(0, 11), (11, 11), (22, 11)]
    for n in range(33, 300):
        groups = groups_of(n)
        assert all(count <= 16 for _, count in groups)
        assert sum(count for _, count in groups) == n and groups[-1][1] > 0
    assert groups_of(132)[-1] == (120, 12) and len(groups_of(132)) == 9


def test_check_can_fail():
    """The checker passes the harness's output and rejects one O word off by
    an ulp-pair, an LSE off by 1e-3, and a changed partial slot."""
    cfg = MergeConfig("bf16", 128, True)
    case = make_case(np.random.default_rng(3), cfg, 40, "rising")
    outputs, error, _, _ = execute(cfg, [case], flash_opt_path())
    assert error is None, error
    o, lse, po, pl = outputs[0]
    assert not check_case(cfg, case, o, lse, po, pl)
    bad_o = o.copy()
    bad_o[5] += 1 << 16 | 1                 # both halves one ulp up
    assert any(e.startswith("O:") for e in check_case(cfg, case, bad_o, lse, po, pl))
    bad_lse = lse.copy()
    bad_lse[1] = np.float32(np.asarray(lse[1], np.float64).astype(np.int64).astype("<u4")
                            .view("<f4") + 1e-3).view("<i4")
    assert any(e.startswith("LSE:") for e in check_case(cfg, case, o, bad_lse, po, pl))
    bad_po = po.copy()
    bad_po[3 * 128 + 7] += 1                 # part 1 (not a group's first): changed
    assert any("partial slots" in e for e in check_case(cfg, case, o, lse, bad_po, pl))


def test_check_can_fail_kernel():
    """The merge kernel's checks: a row of one part is left alone (the split
    kernel wrote it), and no partial slot changes."""
    cfg = MergeConfig("bf16", 64, True, "kernel")
    rng = np.random.default_rng(4)
    one, many = make_case(rng, cfg, 1, "random"), make_case(rng, cfg, 130, "rising")
    outputs, error, _, _ = execute(cfg, [one, many], flash_opt_path())
    assert error is None, error
    assert not check_case(cfg, one, *outputs[0])
    assert not check_case(cfg, many, *outputs[1])
    o, lse, po, pl = outputs[0]
    bad_o = o.copy()
    bad_o[0] = 0
    assert any("fewer than two parts" in e for e in check_case(cfg, one, bad_o, lse, po, pl))
    o, lse, po, pl = outputs[1]
    bad_po = po.copy()
    bad_po[0] += 1                           # part 0's slot: the kernel writes none
    assert any("partial slots" in e for e in check_case(cfg, many, o, lse, bad_po, pl))
    bad_lse = lse.copy()
    bad_lse[2] = np.float32(np.asarray(lse[2], np.float64).astype(np.int64).astype("<u4")
                            .view("<f4") + 1e-3).view("<i4")
    assert any(e.startswith("LSE:") for e in check_case(cfg, many, o, bad_lse, po, pl))


def test_check_can_fail_pair():
    """The pair merge's checks: a row its warps do not take (left at the
    sentinel) and a row merged with part 0's weight for both parts fail; a
    call of one or three parts is left alone."""
    cfg = MergeConfig("bf16", 128, True, "pair")
    rng = np.random.default_rng(5)
    two, three = make_case(rng, cfg, 2, "random", 9), make_case(rng, cfg, 3, "random", 5)
    outputs, error, _, _ = execute(cfg, [two, three], flash_opt_path())
    assert error is None, error
    assert not check_case(cfg, two, *outputs[0])
    assert not check_case(cfg, three, *outputs[1])
    o, lse, po, pl = outputs[0]
    bad_o = o.copy()
    bad_o[8 * 64:9 * 64] = -7                # row 8 (warp 0 of rank 0, second pass)
    assert any(e.startswith("O:") for e in check_case(cfg, two, bad_o, lse, po, pl))
    # Row 0 as if both parts had part 0's weight: (O_0 + O_1) / 2.
    wrong = (two.partial_o[0, 0] + two.partial_o[1, 0]) / 2
    bits = (wrong.astype(np.float32).view("<u4") >> 16).astype(np.int64)
    bad_o = o.copy()
    bad_o[0:64] = (bits[0::2] | (bits[1::2] << 16)).astype("<u4").view("<i4")
    assert any(e.startswith("O:") for e in check_case(cfg, two, bad_o, lse, po, pl))
    o, lse, po, pl = outputs[1]
    bad_o = o.copy()
    bad_o[0] = 0
    assert any("pair merge takes two" in e for e in check_case(cfg, three, bad_o, lse, po, pl))
