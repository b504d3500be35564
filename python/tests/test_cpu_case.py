"""Unit tests of flash_mlir.testing.cpu_case: the MLIR generator, the parser of
printMemrefF32 output (on output captured from mlir-runner 22) and the checker.
No flash-opt needed.

Run:  /usr/bin/python3 -m pytest python/tests/test_cpu_case.py -q
"""

import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.join(HERE, os.pardir)
sys.path.insert(0, PYDIR)

from flash_mlir.testing import cpu_case as cc  # noqa: E402

# Captured from mlir-runner (LLVM 22.1.8): a rank-4 and a rank-3 memref with
# nan / -inf / huge / tiny / negative zero values.
CAPTURED = (
    "Unranked Memref base@ = 0x558820b1cf00 rank = 4 offset = 0 sizes = [1, 1, 2, 3] "
    "strides = [6, 6, 3, 1] data = \n"
    "[[[[1,     -2.5e-07,     0.333333], \n"
    "   [nan,     -inf,     123457]]]]\n"
    "Unranked Memref base@ = 0x558820b68840 rank = 3 offset = 0 sizes = [1, 2, 2] "
    "strides = [4, 2, 1] data = \n"
    "[[[-inf,    4.25], \n"
    "  [1e-30,    -0]]]\n"
)

# Captured: the upstream printer prints uninitialised numbers for an empty memref.
CAPTURED_EMPTY = (
    "Unranked Memref base@ = 0x5594e0ec9400 rank = 4 offset = 0 sizes = [1, 1, 0, 8] "
    "strides = [0, 0, 8, 1] data = \n"
    "[[[[9.13752e-17,     4.59135e-41,     0,     0,     0,     0,     -6.92125e-26,     4.58603e-41]]]]\n"
)


def fmt_block(a, base="0x1234"):
    """Print like printMemrefF32 (6 significant digits, nested brackets)."""
    a = np.asarray(a, dtype=np.float32)
    strides = [int(np.prod(a.shape[i + 1:])) for i in range(a.ndim)]

    def num(x):
        x = float(x)
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return "%g" % x

    def rec(sub, depth):
        if sub.ndim == 1:
            return "[" + ",   ".join(num(x) for x in sub) + "]"
        return "[" + (", \n" + " " * (depth + 1)).join(rec(s, depth + 1) for s in sub) + "]"

    return ("Unranked Memref base@ = %s rank = %d offset = 0 sizes = [%s] strides = [%s] data = \n%s\n"
            % (base, a.ndim, ", ".join(map(str, a.shape)), ", ".join(map(str, strides)), rec(a, 0)))


# ---------------------------------------------------------------------------
# Parser
# ---------------------------------------------------------------------------

def test_parse_captured_output():
    blocks = cc.parse_memref_prints(CAPTURED)
    assert len(blocks) == 2
    a, b = blocks
    assert a.rank == 4 and a.sizes == (1, 1, 2, 3) and a.strides == (6, 6, 3, 1)
    assert a.values.shape == (1, 1, 2, 3)
    assert a.values[0, 0, 0, 0] == 1.0 and a.values[0, 0, 0, 1] == -2.5e-07
    assert a.values[0, 0, 0, 2] == 0.333333
    assert math.isnan(a.values[0, 0, 1, 0]) and a.values[0, 0, 1, 1] == -np.inf
    assert a.values[0, 0, 1, 2] == 123457.0
    assert b.sizes == (1, 2, 2)
    np.testing.assert_array_equal(b.values, [[[-np.inf, 4.25], [1e-30, -0.0]]])


def test_parse_empty_memref_ignores_garbage():
    (blk,) = cc.parse_memref_prints(CAPTURED_EMPTY)
    assert blk.sizes == (1, 1, 0, 8) and blk.values.shape == (1, 1, 0, 8)


def test_parse_rejects_wrong_count():
    bad = CAPTURED.replace("[nan,     -inf,     123457]", "[nan,     -inf]")
    with pytest.raises(ValueError, match="need 6 values, found 5"):
        cc.parse_memref_prints(bad)


def test_parse_accepts_minus_nan_and_exponents():
    text = fmt_block(np.zeros((1, 1, 1, 3))).replace("[0,   0,   0]", "[-nan,   1.5e+07,   -3.25E-12]")
    (blk,) = cc.parse_memref_prints(text)
    assert math.isnan(blk.values[0, 0, 0, 0])
    assert blk.values[0, 0, 0, 1] == 1.5e7 and blk.values[0, 0, 0, 2] == -3.25e-12


def test_parse_roundtrip_of_fmt_block():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    (blk,) = cc.parse_memref_prints(fmt_block(a))
    np.testing.assert_allclose(blk.values, a, rtol=6e-6)


# ---------------------------------------------------------------------------
# Checker
# ---------------------------------------------------------------------------

def _exp(o, lse=None):
    e = [("o", np.asarray(o, dtype=np.float64))]
    if lse is not None:
        e.append(("lse", np.asarray(lse, dtype=np.float64)))
    return e


def test_check_pass_with_print_rounding():
    rng = np.random.default_rng(1)
    o = rng.uniform(-1, 1, (1, 2, 3, 4))
    lse = rng.uniform(-5, 5, (1, 2, 3))
    lse[0, 0, 0] = -np.inf
    ok, msg = cc.check_output(_exp(o, lse), fmt_block(o) + fmt_block(lse))
    assert ok, msg
    assert msg.startswith("PASS")


@pytest.mark.parametrize("delta,ok", [(8e-6, True), (1.2e-5, False), (1e-3, False)])
def test_check_tolerance_boundary(delta, ok):
    o = np.full((1, 1, 2, 2), 0.25)           # 0.25 prints exactly: no print rounding
    out = o.copy()
    out[0, 0, 1, 0] += delta
    text = fmt_block(out).replace("%g" % (0.25 + delta), repr(0.25 + delta))
    got, msg = cc.check_output(_exp(o), text, atol=1e-5, rtol=0.0)
    assert got == ok, msg
    if not ok:
        assert "(0, 0, 1, 0)" in msg


def test_check_nan_fails_even_where_reference_is_zero():
    o = np.zeros((1, 1, 2, 2))
    out = o.copy()
    out[0, 0, 1, 1] = np.nan
    ok, msg = cc.check_output(_exp(o), fmt_block(out))
    assert not ok and "NaN" in msg and "(0, 0, 1, 1)" in msg


@pytest.mark.parametrize("got,want", [(-5.0, -np.inf), (-np.inf, 1.0), (np.inf, -np.inf)])
def test_check_infinities_must_match(got, want):
    ref = np.array([[[want, 0.5]]])
    out = np.array([[[got, 0.5]]])
    ok, msg = cc.check_output(_exp(np.zeros((1, 1, 1, 1)), ref), fmt_block(np.zeros((1, 1, 1, 1))) + fmt_block(out))
    assert not ok and "infinity mismatch" in msg


def test_check_shape_and_block_count():
    o = np.zeros((1, 2, 3, 4))
    ok, msg = cc.check_output(_exp(o), fmt_block(np.zeros((1, 2, 4, 3))))
    assert not ok and "sizes" in msg
    ok, msg = cc.check_output(_exp(o, np.zeros((1, 2, 3))), fmt_block(o))
    assert not ok and "expected 2 printed memref" in msg
    ok, msg = cc.check_output(_exp(o), "")
    assert not ok


def test_print_rounding_bound():
    b = cc.print_rounding_bound(np.array([0.333333, 123457.0, 1e-30, 0.0, -4.25]))
    np.testing.assert_allclose(b, [5e-7, 0.5, 5e-36, 0.0, 5e-6])


# ---------------------------------------------------------------------------
# Generator
# ---------------------------------------------------------------------------

def test_module_text_forms():
    base = dict(seed=3, batch=1, hq=4, hkv=2, nq=3, nk=5, d=8, dv=4)
    q, k, v = cc.make_inputs(cc.CaseConfig(**base))
    plain = cc.render_module(cc.CaseConfig(**base), q, k, v)
    assert ("%o = flash.attention %q, %k, %v\n        : tensor<1x4x3x8xf32>, tensor<1x2x5x8xf32>, "
            "tensor<1x2x5x4xf32> -> tensor<1x4x3x4xf32>\n") in plain
    assert plain.count("func.call @printMemrefF32") == 1
    assert "func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}" in plain
    assert "bufferization.to_buffer %o : tensor<1x4x3x4xf32> to memref<1x4x3x4xf32>" in plain
    full = cc.render_module(cc.CaseConfig(causal=True, scale=0.125, lse=True, **base), q, k, v)
    assert ("%o, %lse = flash.attention %q, %k, %v {causal, scale = 1.250000000e-01 : f32}\n"
            "        : tensor<1x4x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x4xf32> -> "
            "tensor<1x4x3x4xf32>, tensor<1x4x3xf32>\n") in full
    assert full.count("func.call @printMemrefF32") == 2
    assert full.index("%o_unranked) :") < full.index("%lse_unranked) :")
    assert "{causal}" in cc.render_module(cc.CaseConfig(causal=True, **base), q, k, v)
    assert "{scale = 3.000000119e-01 : f32}" in cc.render_module(cc.CaseConfig(scale=0.3, **base), q, k, v)


def test_dense_literal_is_exact_and_nested():
    a = np.array([[0.1, -3.0e-39], [np.inf, 1 / 3]], dtype=np.float32)
    lit = cc.dense_literal(a)
    assert lit.startswith("dense<[[") and lit.endswith("]]>")
    nums = re.findall(r"0x[0-9A-F]{8}|[-0-9.e+]+", lit[len("dense<"):-1])
    back = [np.frombuffer(bytes.fromhex(n[2:])[::-1], np.float32)[0] if n.startswith("0x")
            else np.float32(float(n)) for n in nums]
    assert np.array_equal(np.array(back, np.float32).view(np.uint32), a.ravel().view(np.uint32))
    assert cc.dense_literal(np.zeros((1, 1, 0, 8), np.float32)) == "dense<>"


def test_inputs_are_seeded_float32():
    c = cc.CaseConfig(seed=5, batch=2, hq=2, hkv=1, nq=3, nk=4, d=8, dv=16)
    q1, k1, v1 = cc.make_inputs(c)
    q2, _, _ = cc.make_inputs(c)
    q3, _, _ = cc.make_inputs(cc.CaseConfig(**{**c.__dict__, "seed": 6}))
    assert q1.dtype == k1.dtype == v1.dtype == np.float32
    assert q1.shape == (2, 2, 3, 8) and k1.shape == (2, 1, 4, 8) and v1.shape == (2, 1, 4, 16)
    assert np.array_equal(q1, q2) and not np.array_equal(q1, q3)
    assert np.abs(v1).max() <= 1.0


@pytest.mark.parametrize("ext", ["npz", "json"])
def test_expected_file_roundtrip(tmp_path, ext):
    c = cc.CaseConfig(seed=5, batch=1, hq=2, hkv=1, nq=4, nk=2, d=8, dv=8, causal=True, lse=True)
    o, lse = cc.generate(c, str(tmp_path / "c.mlir"), str(tmp_path / ("c." + ext)))
    assert np.isneginf(lse).sum() == 2 * 2          # rows 0, 1 of both heads see no key
    got = cc.load_expected(str(tmp_path / ("c." + ext)))
    assert [n for n, _ in got] == ["o", "lse"]
    np.testing.assert_array_equal(got[0][1], o)
    np.testing.assert_array_equal(got[1][1], lse)


def test_cli_gen_and_check(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(PYDIR), PYTHONDONTWRITEBYTECODE="1")
    base = [sys.executable, "-m", "flash_mlir.testing.cpu_case"]
    mlir, exp = str(tmp_path / "c.mlir"), str(tmp_path / "c.npz")
    r = subprocess.run(base + ["gen", "--seed", "2", "--batch", "1", "--hq", "2", "--hkv", "1",
                               "--nq", "3", "--nk", "5", "--d", "8", "--dv", "4", "--causal",
                               "--lse", "--mlir", mlir, "--expected", exp], env=env)
    assert r.returncode == 0
    assert "flash.attention" in open(mlir).read()
    (_, o), (_, lse) = cc.load_expected(exp)
    good = tmp_path / "good.out"
    good.write_text(fmt_block(o) + fmt_block(lse))
    r = subprocess.run(base + ["check", "--expected", exp, "--output", str(good)],
                       env=env, stdout=subprocess.PIPE, universal_newlines=True)
    assert r.returncode == 0 and r.stdout.startswith("PASS") and r.stdout.count("\n") == 1
    bad_o = o.copy()
    bad_o[0, 1, 2, 3] += 0.01
    bad = tmp_path / "bad.out"
    bad.write_text(fmt_block(bad_o) + fmt_block(lse))
    r = subprocess.run(base + ["check", "--expected", exp, "--output", str(bad)],
                       env=env, stdout=subprocess.PIPE, universal_newlines=True)
    assert r.returncode == 1 and "(0, 1, 2, 3)" in r.stdout
