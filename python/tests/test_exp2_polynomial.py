"""The polynomial exp2 of the sm_100a softmax (KernelMath::exp2Polynomial),
evaluated in f32 with numpy the way the kernel does, step by step, with the
coefficients read from KernelBuilder.h (kExp2Polynomial):

    x' = maximum(x, -127)       (NaN stays NaN)
    t  = x' + 1.5·2^23          (rounds x' to the integer j in t's low bits)
    j  = t - 1.5·2^23;  f = x' - j           (both exact, f in [-1/2, 1/2])
    p  = fma(f, fma(f, fma(f, c3, c2), c1), 1)
    2^x ≈ p · float(bits(t) << 23 + bits(1.0))     (2^j from its bits)

The fma is taken in float64 and rounded to f32 (the product of two f32 is
exact in float64). Checked: the relative error over the range the softmax
feeds it (x = S·c − shift ≤ τ = 8 with the lazy rescale, down to where 2^x
is still a normal f32) stays below 2^-13.2, under half an ulp of f16 (2^-11)
and bf16 (2^-8), the types P is rounded to; x ≤ -127 and -inf (masked
scores) give exactly +0, as ex2.approx.ftz does; NaN gives NaN.
The kernel math harness (test_kernel_math.py, exp2_polynomial_period) runs
the same emitted ops inside the softmax against the float64 oracle.

Run (from the repository root):
  /usr/bin/python3 -m pytest python/tests/test_exp2_polynomial.py -q
"""

import os
import re

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(HERE, os.pardir, os.pardir, "include", "flash", "Conversion",
                      "FlashToNVGPU", "KernelBuilder.h")
BOUND_LOG2 = -13.2


def coefficients():
    text = open(HEADER).read()
    m = re.search(r"kExp2Polynomial\[3\]\s*=\s*\{([^}]*)\}", text)
    assert m, "kExp2Polynomial not found in KernelBuilder.h"
    values = [v.strip().rstrip("f") for v in m.group(1).split(",")]
    assert len(values) == 3
    return [np.float32(float.fromhex(v)) for v in values]


def fma32(a, b, c):
    return (a.astype(np.float64) * b + np.float64(c)).astype(np.float32)


def exp2_polynomial(x, c3_factor=1.0):
    c1, c2, c3 = coefficients()
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        x = np.maximum(x, np.float32(-127.0))  # maximum: NaN stays NaN
        magic = np.float32(12582912.0)
        t = (x + magic).astype(np.float32)
        j = (t - magic).astype(np.float32)
        f = (x - j).astype(np.float32)
        p = fma32(f, np.full_like(f, c3 * np.float32(c3_factor)), c2)
        p = fma32(f, p, c1)
        p = fma32(f, p, np.float32(1.0))
        shift = (t.view(np.uint32) << np.uint32(23)).astype(np.uint32)
        scale = (shift + np.uint32(0x3F800000)).astype(np.uint32).view(np.float32)
        return (p * scale).astype(np.float32)


def relative_error(x):
    x = np.asarray(x, dtype=np.float32)
    ours = exp2_polynomial(x).astype(np.float64)
    ref = np.exp2(x.astype(np.float64))
    return np.abs(ours / ref - 1.0)


def test_reduction_is_exact():
    rng = np.random.default_rng(0)
    x = rng.uniform(-125.0, 127.0, 1 << 20).astype(np.float32)
    magic = np.float32(12582912.0)
    t = (x + magic).astype(np.float32)
    j = (t - magic).astype(np.float32)
    f = (x - j).astype(np.float32)
    assert np.all(j == np.round(x.astype(np.float64)))  # ties to even
    assert np.all(np.abs(f) <= 0.5)
    assert np.all(f.astype(np.float64) + j.astype(np.float64) == x.astype(np.float64))


def test_max_relative_error_over_softmax_range():
    rng = np.random.default_rng(1)
    # Every f in [-1/2, 1/2] on a fine grid plus random f32 over the whole
    # range: the error depends on f only while 2^x is a normal number.
    grid = np.linspace(-0.5, 0.5, (1 << 21) + 1, dtype=np.float64).astype(np.float32)
    spread = rng.uniform(-125.0, 8.0, 1 << 21).astype(np.float32)
    near_zero = -rng.exponential(1.0, 1 << 20).astype(np.float32)
    integers = np.arange(-125, 128, dtype=np.float32)
    halves = integers + np.float32(0.5)
    x = np.concatenate([grid, spread, near_zero, integers, halves[halves < 127]])
    err = relative_error(x)
    worst = float(err.max())
    assert np.isfinite(worst)
    assert np.log2(worst) < BOUND_LOG2, "max relative error 2^%.2f" % np.log2(worst)
    # And not looser than needed: the fit is near its minimax error.
    assert np.log2(worst) > -14.0


def test_special_values():
    x = np.array([0.0, 1.0, -1.0, 8.0, -125.0, 127.0], dtype=np.float32)
    assert np.array_equal(exp2_polynomial(x), np.exp2(x.astype(np.float64)).astype(np.float32))
    # -inf (masked scores), and everything at or below -127: exactly +0.
    low = np.array([-np.inf, -127.0, -127.5, -200.0, -1e30], dtype=np.float32)
    out = exp2_polynomial(low)
    assert np.all(out == 0.0) and not np.any(np.signbit(out))
    # NaN scores stay NaN (as ex2.approx gives), not a number.
    assert np.isnan(exp2_polynomial(np.array([np.nan], dtype=np.float32)))[0]
    # Just above the normal range: denormal results, still close.
    x = np.array([-126.25, -126.0, -125.75], dtype=np.float32)
    assert np.all(relative_error(x) < 2.0 ** -12)
    # Monotone where P lives (no jumps at the seams between binades).
    x = np.linspace(-30.0, 8.0, 1 << 20, dtype=np.float32)
    y = exp2_polynomial(x)
    assert np.all(np.diff(y.astype(np.float64)) >= 0)


def test_planted_bug_is_caught():
    # A coefficient off by 1% must break the bound (the test can fail).
    f = np.linspace(-0.5, 0.5, 4097, dtype=np.float32)
    err = np.abs(exp2_polynomial(f, c3_factor=1.01).astype(np.float64)
                 / np.exp2(f.astype(np.float64)) - 1.0)
    assert np.log2(err.max()) >= BOUND_LOG2
