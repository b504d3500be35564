"""The GPU kernels' math, run on the CPU, against the float64 oracle.

``flash-opt --flash-test-kernel-math`` emits the math every GPU kernel shares
with the same KernelBuilder functions the kernels are built from (K/V range,
mask, online softmax with the lazy threshold, rescale, P rounded to 16 bits,
O = acc / l and LSE), one warp as vector<32 x T> lanes, around an f32
stand-in for the MMAs; ``flash_mlir.testing.kernel_math`` runs it under
mlir-runner. Each configuration below is one compiled kernel form (sm_80's
loop order or sm_90a's pipelined one, each rescale mode, both first-tile
masks, both ways O leaves, both accumulator layouts: the quad fragment of
mma.sync / wgmma and the row-per-thread one of tcgen05.ld) run on several
problems: odd lengths, GQA,
causal with Nq < Nk and Nq > Nk (fully masked rows), Nq = Nk = 1, a custom
scale, and "rising" inputs whose row max keeps growing across K/V tiles by
more than the lazy threshold. O and LSE must be within
``cpu_case.rounding_tolerance`` (P and O rounded to 16 bits, f32 sums),
docs/testing.md.

Run (from the repository root):
  /usr/bin/python3 -m pytest python/tests/test_kernel_math.py -q
"""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, os.pardir, os.pardir))
sys.path.insert(0, os.path.join(REPO_ROOT, "python"))

from flash_mlir.testing.kernel_math import KernelConfig, Problem, run  # noqa: E402
from flash_opt import flash_opt_path  # noqa: E402



# Problems: (seed, B, Hq, Hkv, Nq, Nk, scale, rising).
ODD = Problem(1, 1, 2, 1, 77, 130)                 # Nq < Nk, ragged tiles
TALL = Problem(2, 1, 2, 2, 130, 77)                # Nq > Nk: fully masked causal rows
GQA = Problem(3, 2, 4, 2, 100, 100, scale=0.3)     # B = 2, 4 q-heads on 2 kv-heads
ONE = Problem(4, 1, 1, 1, 1, 1)
RISING = Problem(5, 1, 2, 1, 150, 300, rising=4.0)   # max rises past 2^8 across tiles
STEEP = Problem(6, 1, 1, 1, 64, 400, rising=16.0)
SHORT_KEYS = Problem(7, 1, 1, 1, 200, 5)           # one ragged K/V tile

CASES = [
    # sm_80: unmasked loop then masked loop, eager rescale, stores of valid rows.
    (KernelConfig(form="sm80", dtype="bf16", d=64, block_q=64, block_kv=64, warps=4,
                  causal=True, lse=True),
     [ODD, TALL, GQA, ONE, RISING]),
    (KernelConfig(form="sm80", dtype="f16", d=128, block_q=128, block_kv=32, warps=4,
                  causal=False, lse=True),
     [ODD, GQA, SHORT_KEYS]),
    (KernelConfig(form="sm80", dtype="f16", d=64, block_q=128, block_kv=64, warps=4,
                  causal=True, lse=False),
     [TALL, RISING]),
    # sm_90a: tile 0 in the prologue, P·V of the previous tile then rescale,
    # drain; eager / lazy / lazy-late, first-tile mask always / branch,
    # O staged for every row (TMA store) or stored directly.
    (KernelConfig(form="sm90a", dtype="bf16", d=64, block_q=128, block_kv=64,
                  causal=True, lse=True, rescale="eager", first_tile_mask="branch",
                  output="staged"),
     [ODD, TALL, GQA, ONE]),
    (KernelConfig(form="sm90a", dtype="f16", d=64, block_q=128, block_kv=64,
                  causal=True, lse=True, rescale="lazy", output="staged"),
     [ODD, TALL, RISING, STEEP]),
    (KernelConfig(form="sm90a", dtype="bf16", d=128, block_q=64, block_kv=128,
                  causal=True, lse=True, rescale="lazy-late", first_tile_mask="branch"),
     [TALL, RISING, STEEP, SHORT_KEYS]),
    (KernelConfig(form="sm90a", dtype="f16", d=64, block_q=192, block_kv=128,
                  causal=False, lse=True, rescale="lazy-late", output="staged"),
     [GQA, STEEP, ONE]),
    (KernelConfig(form="sm90a", dtype="bf16", d=64, block_q=128, block_kv=64,
                  causal=False, lse=True, rescale="lazy"),
     [ODD, STEEP]),
    # Row per thread (sm_100a's tcgen05.ld 32x32b): lane l holds row l of its
    # warp's 32 rows and every column; the mask, softmax (no cross-lane
    # reduction), rescale and epilogue run on that layout.
    (KernelConfig(form="sm90a", dtype="bf16", d=64, block_q=128, block_kv=64,
                  causal=True, lse=True, rescale="lazy", first_tile_mask="branch",
                  output="staged", layout="row"),
     [ODD, TALL, GQA, ONE, RISING]),
    (KernelConfig(form="sm90a", dtype="bf16", d=128, block_q=64, block_kv=128,
                  causal=False, lse=True, rescale="lazy-late", layout="row"),
     [ODD, STEEP, SHORT_KEYS]),
    (KernelConfig(form="sm80", dtype="bf16", d=64, block_q=64, block_kv=32,
                  causal=True, lse=True, layout="row"),
     [TALL, GQA]),
    (KernelConfig(form="sm90a", dtype="f16", d=64, block_q=128, block_kv=64,
                  causal=False, lse=True, rescale="eager", output="staged",
                  layout="row"),
     [GQA, ONE]),
    # sm_100a's softmax: row layout, lazy rescale, one column of P in five
    # by the polynomial exp2 (KernelMath::exp2Polynomial) on the FMA units,
    # fully masked rows (TALL: l = 0 and LSE = -inf need P = 0 exactly).
    (KernelConfig(form="sm90a", dtype="bf16", d=64, block_q=128, block_kv=64,
                  causal=True, lse=True, rescale="lazy", first_tile_mask="branch",
                  output="staged", layout="row", exp2_polynomial_period=5),
     [ODD, TALL, GQA, RISING, STEEP]),
    (KernelConfig(form="sm90a", dtype="f16", d=128, block_q=128, block_kv=128,
                  causal=True, lse=True, rescale="lazy", layout="row",
                  exp2_polynomial_period=2),
     [TALL, ONE, SHORT_KEYS]),
]


@pytest.mark.parametrize("cfg,problems", CASES, ids=[c.short_id() for c, _ in CASES])
def test_kernel_math_matches_oracle(cfg, problems):
    results, error = run(cfg, problems, flash_opt_path())
    assert error is None, error
    failures = [msg for ok, msg in results if not ok]
    assert not failures, "\n".join(failures)
