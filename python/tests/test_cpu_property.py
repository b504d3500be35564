"""Property test: flash.attention on the CPU, tiled and reference, vs the f64 oracle.

Every configuration is compiled twice with flash-opt and run with mlir-runner:
  tiled:      --flash-cpu-pipeline="block-q=BQ block-kv=BKV" (every other case with
              split-kv=false: few-row cases are tiled in the split-KV form by default)
  reference:  --flash-cpu-pipeline="reference=true"
and both outputs (O, and LSE when requested) must match the float64 numpy
oracle within atol = rtol = 1e-5 (plus printMemrefF32's 6-digit rounding).

Configurations: a fixed list that pins down the interesting corners, plus
random ones drawn from a fixed base seed.  Environment:
  FLASH_OPT         flash-opt binary (default build/bin/flash-opt under the repo root)
  FLASH_TEST_SEED   base seed of the random configurations (default 20261129)
  FLASH_TEST_RANDOM number of random configurations (default 40)

Run (from the repository root):
  /usr/bin/python3 -m pytest python/tests/test_cpu_property.py -q
A missing flash-opt is a failure, not a skip.
"""

import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, os.pardir, os.pardir))
sys.path.insert(0, os.path.join(REPO_ROOT, "python"))

from flash_mlir.testing.cpu_case import (  # noqa: E402
    CaseConfig, run_case, pick_length, pick_tile)

BASE_SEED = int(os.environ.get("FLASH_TEST_SEED", "20261129"))
N_RANDOM = int(os.environ.get("FLASH_TEST_RANDOM", "40"))
MAX_ELEMS = 64 * 1024          # per tensor; keeps the whole file within a few minutes


def flash_opt_path():
    p = os.environ.get("FLASH_OPT", os.path.join("build", "bin", "flash-opt"))
    return p if os.path.isabs(p) else os.path.join(REPO_ROOT, p)


def require_flash_opt():
    p = flash_opt_path()
    if not (os.path.isfile(p) and os.access(p, os.X_OK)):
        pytest.fail("flash-opt binary not found or not executable at %s: build it "
                    "(cmake --build build --target flash-opt) or point FLASH_OPT at it" % p,
                    pytrace=False)
    return p


# ---------------------------------------------------------------------------
# Configurations
# ---------------------------------------------------------------------------

def C(seed, b, hq, hkv, nq, nk, d, dv, causal=False, scale=None, lse=False):
    return CaseConfig(seed=seed, batch=b, hq=hq, hkv=hkv, nq=nq, nk=nk, d=d, dv=dv,
                      causal=causal, scale=scale, lse=lse)


def fixed_cases():
    """(config, block_q, block_kv) that cover the corners deterministically."""
    s = 1000
    return [
        (C(s + 0, 1, 1, 1, 1, 1, 8, 8), 1, 1),                                  # smallest
        (C(s + 1, 1, 2, 2, 7, 7, 16, 16, causal=True), 3, 2),                  # square causal, tails
        (C(s + 2, 1, 4, 1, 7, 100, 32, 16, causal=True, lse=True), 4, 16),     # Nq<Nk causal, MQA
        (C(s + 3, 1, 2, 1, 100, 7, 16, 8, causal=True, lse=True), 32, 4),      # Nq>Nk: masked rows
        (C(s + 4, 1, 2, 2, 100, 100, 16, 32, causal=True, scale=0.5), 100, 128),  # tiles >= N
        (C(s + 5, 2, 8, 2, 1, 130, 16, 16, lse=True), 1, 7),                   # decode-like, GQA 4
        (C(s + 6, 1, 2, 1, 130, 1, 8, 16, causal=True, lse=True), 16, 1),      # one key, most rows masked
        (C(s + 7, 1, 2, 1, 37, 53, 64, 8, scale=0.05), 5, 9),                  # Dv != D, scale
        (C(s + 8, 2, 4, 2, 33, 33, 8, 64, causal=True, lse=True), 1, 1),       # tile 1 everywhere
        (C(s + 9, 1, 2, 2, 64, 64, 16, 16, causal=True), 16, 16),              # dividing tiles
        (C(s + 10, 1, 1, 1, 2, 129, 8, 8, causal=True, lse=True), 8, 128),     # Nk % bkv == 1
        (C(s + 11, 1, 2, 1, 129, 2, 8, 8, causal=True, lse=True), 128, 2),     # Nq % bq == 1
        (C(s + 12, 2, 2, 1, 100, 100, 32, 32, scale=0.125, lse=True), 7, 13),  # non-causal, LSE
        (C(s + 13, 1, 4, 2, 7, 7, 64, 64, causal=True, scale=0.3), 8, 8),      # tile > N, D 64
    ]


# Random lengths: 1, 7, a whole number of tiles, or uniform; tiles: 1, not
# dividing, past the length, or a power of two (cpu_case.pick_length/pick_tile).
LENGTHS, TILES = (100, 0.15, 130), (40, [4, 8, 16, 32, 64])


def random_cases(base_seed, count):
    rng = np.random.default_rng(base_seed)
    out = []
    for i in range(count):
        b = int(rng.integers(1, 3))
        hkv = int(rng.choice([1, 2]))
        hq = hkv * int(rng.choice([1, 2, 4]))
        nq, nk = pick_length(rng, *LENGTHS), pick_length(rng, *LENGTHS)
        d, dv = int(rng.choice([8, 16, 32, 64])), int(rng.choice([8, 16, 32, 64]))
        causal = bool(rng.random() < 0.5)
        scale = None if rng.random() < 0.5 else float(rng.choice([0.05, 0.125, 0.3, 0.5]))
        lse = bool(rng.random() < 0.5)
        # Keep every tensor below MAX_ELEMS elements: shrink heads, then lengths.
        def biggest():
            return b * hq * max(nq, nk) * max(d, dv)
        while biggest() > MAX_ELEMS and b > 1:
            b -= 1
        while biggest() > MAX_ELEMS and hq > hkv:
            hq //= 2
        while biggest() > MAX_ELEMS:
            nq, nk = max(1, nq * 2 // 3), max(1, nk * 2 // 3)
        cfg = C(base_seed * 1000 + 100 + i, b, hq, hkv, nq, nk, d, dv, causal, scale, lse)
        out.append((cfg, pick_tile(rng, nq, *TILES), pick_tile(rng, nk, *TILES)))
    return out


CASES = fixed_cases() + random_cases(BASE_SEED, N_RANDOM)

PIPELINES = {
    "tiled": lambda bq, bkv: ["--flash-cpu-pipeline=block-q=%d block-kv=%d" % (bq, bkv)],
    "reference": lambda bq, bkv: ["--flash-cpu-pipeline=reference=true"],
}


def tiled_pipeline(i, bq, bkv):
    """The tiled run of case i. Cases with few query rows (Hq/Hkv × Nq <= 64)
    are tiled in the split-KV form by default; every other case index keeps
    them in the forward form (split-kv=false), so that both forms of few-row
    attention stay covered without more runs (test_cpu_paged.py has the
    split-KV form's own cases)."""
    if i % 2:
        return ["--flash-cpu-pipeline=block-q=%d block-kv=%d split-kv=false" % (bq, bkv)]
    return PIPELINES["tiled"](bq, bkv)


def _case_id(i, case):
    cfg, bq, bkv = case
    tag = "fixed" if i < len(fixed_cases()) else "rand"
    return "%s%02d-%s-bq%d-bkv%d" % (tag, i, cfg.short_id(), bq, bkv)


PARAMS = [pytest.param(i, case, pipe, id="%s-%s" % (_case_id(i, case), pipe))
          for i, case in enumerate(CASES) for pipe in PIPELINES]


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------

def test_flash_opt_binary_exists():
    require_flash_opt()


def test_configuration_coverage():
    """The configuration list covers what the property test promises."""
    cfgs = [c for c, _, _ in CASES]
    assert len(CASES) >= 50
    assert {c.batch for c in cfgs} == {1, 2}
    assert {c.hkv for c in cfgs} == {1, 2}
    assert {c.hq // c.hkv for c in cfgs} == {1, 2, 4}
    assert {1, 7, 100} <= {c.nq for c in cfgs} and {1, 7, 100} <= {c.nk for c in cfgs}
    assert {8, 16, 32, 64} <= {c.d for c in cfgs} and {8, 16, 32, 64} <= {c.dv for c in cfgs}
    assert any(c.d != c.dv for c in cfgs)
    assert any(c.causal and c.nq < c.nk for c in cfgs)
    assert any(c.causal and c.nq > c.nk for c in cfgs)
    assert any(c.causal and c.nq == c.nk for c in cfgs)
    assert any(c.scale is None for c in cfgs) and any(c.scale is not None for c in cfgs)
    assert any(c.lse for c in cfgs) and any(not c.lse for c in cfgs)
    assert any(c.nq % bq for c, bq, _ in CASES) and any(c.nk % bkv for c, _, bkv in CASES)
    assert any(bq == 1 for _, bq, _ in CASES) and any(bkv == 1 for _, _, bkv in CASES)
    assert any(bq >= c.nq and c.nq > 1 for c, bq, _ in CASES)
    assert any(bkv >= c.nk and c.nk > 1 for c, _, bkv in CASES)
    for c in cfgs:
        assert max(c.batch * c.hq * c.nq * c.d, c.batch * c.hkv * c.nk * max(c.d, c.dv),
                   c.batch * c.hq * c.nq * c.dv) <= MAX_ELEMS


@pytest.mark.parametrize("index,case,pipeline", PARAMS)
def test_attention_matches_oracle(index, case, pipeline):
    flash_opt = require_flash_opt()
    cfg, bq, bkv = case
    args = tiled_pipeline(index, bq, bkv) if pipeline == "tiled" else PIPELINES[pipeline](bq, bkv)
    ok, msg = run_case(cfg, flash_opt, args)
    assert ok, "%s pipeline (FLASH_TEST_SEED=%d):\n%s" % (pipeline, BASE_SEED, msg)


EDGE_CASES = [
    (C(7001, 1, 2, 1, 5, 0, 8, 8, lse=True), 4, 4),                 # no keys at all
    (C(7002, 1, 2, 1, 5, 0, 8, 8, causal=True, lse=True), 4, 4),    # no keys, causal
]


@pytest.mark.parametrize("case,pipeline", [
    pytest.param(case, pipe, id="edge-%s-bq%d-bkv%d-%s" % (case[0].short_id(), case[1], case[2], pipe))
    for case in EDGE_CASES for pipe in PIPELINES])
def test_edge_zero_keys(case, pipeline):
    """Nk = 0: every row is fully masked, O = 0 and LSE = -inf (never NaN)."""
    flash_opt = require_flash_opt()
    cfg, bq, bkv = case
    ok, msg = run_case(cfg, flash_opt, PIPELINES[pipeline](bq, bkv))
    assert ok, "%s pipeline:\n%s" % (pipeline, msg)
