"""16-bit numerics of the CPU pipelines against the float64 oracle.

f16 and bf16 q, k, v (random, rounded to the type) through
``--flash-cpu-pipeline`` (tiled, where P is rounded to the input type before
P·V as on the GPU, and the reference lowering), O printed after widening to
f32, checked per element within ``cpu_case.rounding_tolerance``: u·W for P's
rounding (u = 2^-8 bf16, 2^-11 f16; W = Σ_j w_j·|v_j|), u·|O| for O's, and
the f32 terms (docs/testing.md). The f32 cases stay in test_cpu_property.py.

Run (from the repository root):
  /usr/bin/python3 -m pytest python/tests/test_cpu_16bit.py -q
"""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, os.pardir, os.pardir))
sys.path.insert(0, os.path.join(REPO_ROOT, "python"))

from flash_mlir.testing.cpu_case import CaseConfig, run_case  # noqa: E402
from flash_opt import flash_opt_path  # noqa: E402



def C(seed, dtype, b, hq, hkv, nq, nk, d, causal=False, scale=None, lse=True):
    return CaseConfig(seed=seed, batch=b, hq=hq, hkv=hkv, nq=nq, nk=nk, d=d, dv=d,
                      causal=causal, scale=scale, lse=lse, dtype=dtype)


# (config, block-q, block-kv)
CASES = [
    (C(11, "bf16", 1, 2, 1, 37, 61, 16, causal=True), 16, 16),    # Nq < Nk, ragged
    (C(12, "bf16", 1, 2, 2, 61, 37, 16, causal=True), 16, 8),     # Nq > Nk: empty rows
    (C(13, "bf16", 2, 4, 2, 50, 50, 32, scale=0.3), 16, 32),      # GQA, custom scale
    (C(14, "f16", 1, 2, 1, 37, 61, 16, causal=True), 16, 16),
    (C(15, "f16", 1, 2, 2, 61, 37, 16, causal=True), 8, 16),
    (C(16, "f16", 2, 4, 2, 50, 50, 32, lse=False), 32, 16),
    (C(17, "bf16", 1, 1, 1, 1, 1, 16), 16, 16),
    (C(18, "f16", 1, 1, 1, 100, 7, 16, causal=True), 64, 16),
]


@pytest.mark.parametrize("cfg,bq,bkv", CASES,
                         ids=["%s-bq%d-bkv%d" % (c.short_id(), bq, bkv) for c, bq, bkv in CASES])
def test_tiled_16bit(cfg, bq, bkv):
    ok, msg = run_case(cfg, flash_opt_path(),
                       ['--flash-cpu-pipeline=block-q=%d block-kv=%d' % (bq, bkv)])
    assert ok, msg


@pytest.mark.parametrize("cfg", [CASES[1][0], CASES[5][0]],
                         ids=lambda c: c.short_id())
def test_reference_16bit(cfg):
    ok, msg = run_case(cfg, flash_opt_path(), ["--flash-cpu-pipeline=reference=true"])
    assert ok, msg
