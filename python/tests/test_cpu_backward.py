"""Property test: flash.attention_backward on the CPU, tiled and reference, vs the f64 oracle.

Every configuration (q, k, v random; O and LSE from the float64 forward,
O rounded to the element type; dO random) runs through
  tiled:      --flash-cpu-pipeline, the op carrying its own
              #flash.schedule<block_q = BQ, block_kv = BKV>
  reference:  --flash-cpu-pipeline=reference=true
and dQ, dK, dV must match flash_mlir.oracle.attention_backward_reference on
the same inputs, per element within cpu_case.backward_rounding_tolerance
(the rounding of P, dS and the results to 16 bits where the element type is
16-bit, and the f32 arithmetic; docs/testing.md).

To keep CI short, configurations run in batches: one module per batch holds
one flash.attention_backward per configuration, so a batch costs one
flash-opt and one mlir-runner run. A failing configuration is named with a
one-case reproducer.

Configurations: fixed corners plus random ones from a fixed base seed.
Environment:
  FLASH_OPT            flash-opt binary (default build/bin/flash-opt under the repo root)
  FLASH_TEST_SEED      base seed of the random configurations (default 20261202)
  FLASH_TEST_RANDOM    number of random configurations (default 60)

Run (from the repository root):
  /usr/bin/python3 -m pytest python/tests/test_cpu_backward.py -q
"""

import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, os.pardir, os.pardir))
sys.path.insert(0, os.path.join(REPO_ROOT, "python"))
sys.path.insert(0, HERE)

from flash_mlir.testing.cpu_case import (  # noqa: E402
    CaseConfig, run_backward_batch, pick_length, pick_tile)
from flash_opt import flash_opt_path  # noqa: E402

BASE_SEED = int(os.environ.get("FLASH_TEST_SEED", "20261202"))
N_RANDOM = int(os.environ.get("FLASH_TEST_RANDOM", "60"))
MAX_ELEMS = 16 * 1024          # per tensor
BATCH_ELEMS = 96 * 1024        # q, k, v, o, do elements per batch (module size)


def require_flash_opt():
    p = flash_opt_path()
    if not (os.path.isfile(p) and os.access(p, os.X_OK)):
        pytest.fail("flash-opt binary not found or not executable at %s" % p, pytrace=False)
    return p


def C(seed, b, hq, hkv, nq, nk, d, dv, causal=False, scale=None, dtype="f32"):
    return CaseConfig(seed=seed, batch=b, hq=hq, hkv=hkv, nq=nq, nk=nk, d=d, dv=dv,
                      causal=causal, scale=scale, dtype=dtype, backward=True)


def fixed_cases():
    """(config, block_q, block_kv) pinning the corners down."""
    s = 5000
    return [
        (C(s + 0, 1, 1, 1, 1, 1, 8, 8), 1, 1),                                    # smallest
        (C(s + 1, 1, 2, 2, 7, 7, 16, 16, causal=True), 3, 2),                    # square causal, tails
        (C(s + 2, 1, 4, 1, 7, 60, 16, 8, causal=True), 4, 16),                   # Nq < Nk causal, MQA
        (C(s + 3, 1, 2, 1, 60, 7, 16, 8, causal=True), 16, 4),                   # Nq > Nk: masked rows
        (C(s + 4, 1, 2, 2, 50, 50, 16, 32, causal=True, scale=0.5), 64, 64),     # tiles >= N
        (C(s + 5, 2, 8, 2, 1, 45, 16, 16), 1, 7),                                # decode-like, GQA 4
        (C(s + 6, 1, 2, 1, 45, 1, 8, 16, causal=True), 16, 1),                   # one key: most rows masked
        (C(s + 7, 1, 2, 1, 37, 53, 32, 8, scale=0.05), 5, 9),                    # Dv != D, scale
        (C(s + 8, 2, 4, 2, 13, 13, 8, 32, causal=True), 1, 1),                   # tile 1 everywhere
        (C(s + 9, 1, 2, 2, 64, 64, 16, 16, causal=True), 16, 16),                # dividing tiles
        (C(s + 10, 1, 1, 1, 2, 65, 8, 8, causal=True), 8, 64),                   # Nk % bkv == 1
        (C(s + 11, 1, 2, 1, 65, 2, 8, 8, causal=True), 64, 2),                   # Nq % bq == 1
        (C(s + 12, 1, 2, 1, 5, 0, 8, 8, causal=True), 4, 4),                     # no keys at all
        (C(s + 13, 1, 4, 2, 31, 47, 16, 8, causal=True, dtype="bf16"), 8, 16),   # 16-bit ...
        (C(s + 14, 1, 4, 2, 47, 31, 16, 16, causal=True, dtype="f16"), 16, 8),
        (C(s + 15, 2, 2, 1, 40, 40, 32, 16, scale=0.3, dtype="bf16"), 16, 16),
        (C(s + 16, 1, 2, 2, 33, 20, 8, 8, dtype="f16"), 32, 32),
    ]


# Random lengths: 1, 7, a whole number of tiles, or uniform; tiles: 1, not
# dividing, past the length, or a power of two (cpu_case.pick_length/pick_tile).
LENGTHS, TILES = (64, 0.10, 70), (20, [4, 8, 16, 32])


def random_cases(base_seed, count):
    rng = np.random.default_rng(base_seed)
    out = []
    for i in range(count):
        b = int(rng.integers(1, 3))
        hkv = int(rng.choice([1, 2]))
        hq = hkv * int(rng.choice([1, 2, 4]))
        nq, nk = pick_length(rng, *LENGTHS), pick_length(rng, *LENGTHS)
        d, dv = int(rng.choice([8, 16, 32])), int(rng.choice([8, 16, 32]))
        causal = bool(rng.random() < 0.6)
        scale = None if rng.random() < 0.5 else float(rng.choice([0.05, 0.125, 0.3, 0.5]))
        dtype = str(rng.choice(["f32"] * 6 + ["f16", "bf16"]))

        def biggest():
            return b * hq * max(nq, nk) * max(d, dv)
        while biggest() > MAX_ELEMS and b > 1:
            b -= 1
        while biggest() > MAX_ELEMS and hq > hkv:
            hq //= 2
        while biggest() > MAX_ELEMS:
            nq, nk = max(1, nq * 2 // 3), max(1, nk * 2 // 3)
        cfg = C(base_seed * 1000 + 100 + i, b, hq, hkv, nq, nk, d, dv, causal, scale, dtype)
        out.append((cfg, pick_tile(rng, nq, *TILES), pick_tile(rng, nk, *TILES)))
    return out


def _elements(cfg):
    return (2 * cfg.batch * cfg.hq * cfg.nq * (cfg.d + cfg.dv)
            + cfg.batch * cfg.hkv * cfg.nk * (cfg.d + cfg.dv))


def batches(cases):
    """Consecutive groups of cases with at most BATCH_ELEMS input elements."""
    out, current, size = [], [], 0
    for case in cases:
        n = _elements(case[0])
        if current and size + n > BATCH_ELEMS:
            out.append(current)
            current, size = [], 0
        current.append(case)
        size += n
    if current:
        out.append(current)
    return out


CASES = fixed_cases() + random_cases(BASE_SEED, N_RANDOM)
BATCHES = batches(CASES)

PIPELINES = {
    "tiled": "--flash-cpu-pipeline",
    "reference": "--flash-cpu-pipeline=reference=true",
}


def test_configuration_coverage():
    """The configuration list covers what the property test promises."""
    cfgs = [c for c, _, _ in CASES]
    assert len(CASES) >= 50
    assert sum(len(b) for b in BATCHES) == len(CASES)
    assert {c.batch for c in cfgs} == {1, 2}
    assert {c.hq // c.hkv for c in cfgs} >= {1, 2, 4}
    assert {1, 7} <= {c.nq for c in cfgs} and {1, 7} <= {c.nk for c in cfgs}
    assert any(c.nq % 2 and c.nq > 7 for c in cfgs) and any(c.nk % 2 and c.nk > 7 for c in cfgs)
    assert any(c.d != c.dv for c in cfgs)
    assert any(c.causal and c.nq < c.nk for c in cfgs)
    assert any(c.causal and c.nq > c.nk for c in cfgs)      # rows that see no key
    assert any(c.causal and c.nq == c.nk for c in cfgs)
    assert any(c.nk == 0 for c in cfgs)
    assert any(c.scale is None for c in cfgs) and any(c.scale is not None for c in cfgs)
    assert {"f32", "f16", "bf16"} <= {c.dtype for c in cfgs}
    assert any(c.nq % bq for c, bq, _ in CASES) and any(c.nk % bkv for c, _, bkv in CASES if c.nk)
    assert any(bq == 1 for _, bq, _ in CASES) and any(bkv == 1 for _, _, bkv in CASES)
    assert any(bq >= c.nq > 1 for c, bq, _ in CASES) and any(bkv >= c.nk > 1 for c, _, bkv in CASES)
    for c in cfgs:
        assert c.batch * max(c.hq * c.nq, c.hkv * c.nk) * max(c.d, c.dv) <= MAX_ELEMS


@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
@pytest.mark.parametrize("index", range(len(BATCHES)),
                         ids=["batch%d-%dcases" % (i, len(b)) for i, b in enumerate(BATCHES)])
def test_backward_matches_oracle(index, pipeline):
    flash_opt = require_flash_opt()
    cases = [(cfg, (bq, bkv)) for cfg, bq, bkv in BATCHES[index]]
    ok, messages = run_backward_batch(cases, flash_opt, PIPELINES[pipeline])
    failures = [m for m in messages if not m.startswith("case ")]
    assert ok, "%s pipeline (FLASH_TEST_SEED=%d):\n%s" % (pipeline, BASE_SEED, "\n".join(failures))
