"""Tests of the float64 oracle (flash_mlir.oracle) itself.

The oracle is compared with a brute-force implementation that loops over
rows in plain Python (math.exp / math.fsum, no numpy broadcasting), and is
checked against properties of attention that any correct implementation
has.  The backward oracle is checked against central finite differences of
the forward oracle.  Each test can fail: none compares the oracle with itself.

Run:  /usr/bin/python3 -m pytest python/tests/test_oracle.py -q
"""

import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from flash_mlir.oracle import attention_backward_reference, attention_reference  # noqa: E402


# ---------------------------------------------------------------------------
# An independent, deliberately naive implementation.
# ---------------------------------------------------------------------------

def brute_force(q, k, v, causal=False, scale=None):
    """Row-by-row attention in plain Python floats."""
    B, Hq, Nq, D = q.shape
    _, Hkv, Nk, _ = k.shape
    Dv = v.shape[3]
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    group = Hq // Hkv
    o = np.zeros((B, Hq, Nq, Dv))
    lse = np.zeros((B, Hq, Nq))
    for b in range(B):
        for h in range(Hq):
            g = h // group
            for i in range(Nq):
                keys = [j for j in range(Nk) if (not causal) or j - (Nk - Nq) <= i]
                if not keys:
                    lse[b, h, i] = -math.inf
                    continue          # o row stays 0
                s = {j: scale * math.fsum(float(q[b, h, i, t]) * float(k[b, g, j, t])
                                          for t in range(D)) for j in keys}
                mx = max(s.values())
                w = {j: math.exp(s[j] - mx) for j in keys}
                z = math.fsum(w.values())
                lse[b, h, i] = mx + math.log(z)
                for c in range(Dv):
                    o[b, h, i, c] = math.fsum(w[j] * float(v[b, g, j, c]) for j in keys) / z
    return o, lse


def rand_qkv(seed, B, Hq, Hkv, Nq, Nk, D, Dv, spread=1.0):
    rng = np.random.default_rng(seed)
    q = (rng.standard_normal((B, Hq, Nq, D)) * spread).astype(np.float32)
    k = rng.standard_normal((B, Hkv, Nk, D)).astype(np.float32)
    v = rng.uniform(-1, 1, (B, Hkv, Nk, Dv)).astype(np.float32)
    return q, k, v


# Tiny shapes that cover GQA, MQA, Nq < Nk, Nq > Nk, Nq == Nk, Dv != D.
SHAPES = [
    # B, Hq, Hkv, Nq, Nk, D, Dv
    (1, 1, 1, 1, 1, 4, 4),
    (1, 2, 2, 3, 3, 4, 2),
    (2, 4, 2, 5, 3, 3, 5),     # Nq > Nk
    (1, 4, 1, 2, 6, 4, 3),     # MQA, Nq < Nk
    (2, 6, 3, 4, 4, 2, 2),     # group 2, three kv heads
    (1, 3, 1, 7, 2, 5, 1),     # Nq >> Nk
]


def _sid(s):
    return "B%d-Hq%d-Hkv%d-Nq%d-Nk%d-D%d-Dv%d" % s


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("scale", [None, 0.37, 3.0], ids=["defscale", "scale0.37", "scale3"])
@pytest.mark.parametrize("shape", SHAPES, ids=[_sid(s) for s in SHAPES])
def test_matches_brute_force(shape, scale, causal):
    q, k, v = rand_qkv(sum(shape) * 7 + int(causal), *shape)
    o, lse = attention_reference(q, k, v, causal=causal, scale=scale)
    ob, lb = brute_force(q, k, v, causal=causal, scale=scale)
    assert o.shape == ob.shape and lse.shape == lb.shape
    assert o.dtype == np.float64 and lse.dtype == np.float64
    assert not np.isnan(o).any() and not np.isnan(lse).any()
    np.testing.assert_allclose(o, ob, rtol=1e-12, atol=1e-13)
    assert np.array_equal(np.isneginf(lse), np.isneginf(lb))
    fin = np.isfinite(lb)
    np.testing.assert_allclose(lse[fin], lb[fin], rtol=1e-12, atol=1e-13)


def test_large_scores_are_stable():
    # Scores of magnitude ~1e3: exp() without max subtraction overflows.
    q, k, v = rand_qkv(3, 1, 2, 1, 4, 5, 8, 3)
    o, lse = attention_reference(q, k, v, causal=True, scale=300.0)
    ob, lb = brute_force(q, k, v, causal=True, scale=300.0)
    assert np.isfinite(o).all() and np.isfinite(lse).all()
    np.testing.assert_allclose(o, ob, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lse, lb, rtol=1e-12)
    assert np.abs(lse).max() > 100.0


@pytest.mark.parametrize("nq,nk", [(5, 5), (3, 7), (7, 3)], ids=["eq", "q<k", "q>k"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_probabilities_sum_to_one_and_respect_the_mask(nq, nk, causal):
    # With V = identity (Dv = Nk), O is the probability matrix P itself.
    rng = np.random.default_rng(11)
    q = rng.standard_normal((1, 2, nq, 6))
    k = rng.standard_normal((1, 1, nk, 6))
    v = np.eye(nk)[None, None]
    p, lse = attention_reference(q, k, v, causal=causal)
    shift = nk - nq
    for i in range(nq):
        visible = [j for j in range(nk) if not causal or j <= i + shift]
        hidden = [j for j in range(nk) if j not in visible]
        row = p[0, :, i, :]
        assert np.all(row[:, hidden] == 0.0), "masked key got weight in row %d" % i
        if visible:
            assert np.all(row[:, visible] > 0.0)
            np.testing.assert_allclose(row.sum(axis=-1), 1.0, rtol=0, atol=1e-14)
        else:
            assert np.all(row == 0.0) and np.all(np.isneginf(lse[0, :, i]))
    # And P is the softmax of the scores over the visible keys.
    s = np.einsum("hqd,kd->hqk", q[0], k[0, 0]) / math.sqrt(6)
    for i in range(nq):
        vis = np.array([not causal or j <= i + shift for j in range(nk)])
        if vis.any():
            e = np.exp(s[:, i, vis] - s[:, i, vis].max(axis=-1, keepdims=True))
            np.testing.assert_allclose(p[0, :, i, vis].T, e / e.sum(-1, keepdims=True), atol=1e-14)


def test_causal_square_first_row_is_first_value():
    q, k, v = rand_qkv(5, 2, 4, 2, 9, 9, 8, 5)
    o, lse = attention_reference(q, k, v, causal=True)
    for h in range(4):
        np.testing.assert_allclose(o[:, h, 0, :], v[:, h // 2, 0, :], rtol=0, atol=1e-15)
        # LSE of a single visible key is that key's score.
        s00 = (q[:, h, 0, :].astype(np.float64) * k[:, h // 2, 0, :]).sum(-1) / math.sqrt(8)
        np.testing.assert_allclose(lse[:, h, 0], s00, rtol=1e-14, atol=1e-14)
    # The last row sees everything: equals the non-causal last row.
    of, lf = attention_reference(q, k, v, causal=False)
    np.testing.assert_allclose(o[:, :, -1], of[:, :, -1], rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(lse[:, :, -1], lf[:, :, -1], rtol=1e-14)
    # ...and a middle row does not (the mask does something).
    assert not np.allclose(o[:, :, 4], of[:, :, 4])


def test_causal_bottom_right_alignment_when_nq_less_than_nk():
    # Nq=3, Nk=5: query row i sees keys 0..i+2; the last row sees all keys.
    q, k, v = rand_qkv(6, 1, 1, 1, 3, 5, 4, 4)
    o, lse = attention_reference(q, k, v, causal=True)
    for i in range(3):
        oi, li = attention_reference(q[:, :, i:i + 1], k[:, :, :i + 3], v[:, :, :i + 3])
        np.testing.assert_allclose(o[:, :, i:i + 1], oi, rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(lse[:, :, i:i + 1], li, rtol=1e-14)


def test_fully_masked_rows_give_zero_and_minus_inf():
    # Nq=6 > Nk=2, causal: rows 0..3 see nothing, row 4 sees key 0, row 5 keys 0..1.
    q, k, v = rand_qkv(7, 2, 2, 1, 6, 2, 4, 3)
    with np.errstate(all="raise"):  # no 0/0, no log(0), no inf-inf inside
        o, lse = attention_reference(q, k, v, causal=True)
    assert not np.isnan(o).any() and not np.isnan(lse).any()
    assert np.all(o[:, :, :4] == 0.0)
    assert np.all(np.isneginf(lse[:, :, :4]))
    assert np.all(np.isfinite(lse[:, :, 4:]))
    for h in range(2):
        np.testing.assert_allclose(o[:, h, 4], v[:, 0, 0], rtol=0, atol=1e-15)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_zero_keys(causal):
    q = np.ones((2, 2, 3, 4), dtype=np.float32)
    k = np.zeros((2, 1, 0, 4), dtype=np.float32)
    v = np.zeros((2, 1, 0, 5), dtype=np.float32)
    with np.errstate(all="raise"):
        o, lse = attention_reference(q, k, v, causal=causal)
    assert o.shape == (2, 2, 3, 5) and lse.shape == (2, 2, 3)
    assert np.all(o == 0.0) and np.all(np.isneginf(lse))


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_gqa_equals_repeated_kv_heads(causal):
    q, k, v = rand_qkv(8, 2, 6, 2, 5, 7, 4, 3)
    o, lse = attention_reference(q, k, v, causal=causal)
    # Query head h uses kv head h // 3: repeat each kv head 3 times in place.
    kr, vr = np.repeat(k, 3, axis=1), np.repeat(v, 3, axis=1)
    o2, lse2 = attention_reference(q, kr, vr, causal=causal)
    np.testing.assert_allclose(o, o2, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(lse, lse2, rtol=1e-14)
    # The other plausible mapping (h % Hkv, i.e. np.tile) is a different answer.
    o3, _ = attention_reference(q, np.tile(k, (1, 3, 1, 1)), np.tile(v, (1, 3, 1, 1)), causal=causal)
    assert not np.allclose(o, o3)


def test_default_scale_is_inverse_sqrt_d():
    q, k, v = rand_qkv(9, 1, 2, 2, 4, 6, 16, 4)
    o, lse = attention_reference(q, k, v)
    o2, lse2 = attention_reference(q, k, v, scale=0.25)
    np.testing.assert_allclose(o, o2, rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(lse, lse2, rtol=1e-15)
    o3, _ = attention_reference(q, k, v, scale=1.0)
    assert not np.allclose(o, o3)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_lse_consistency(causal):
    q, k, v = rand_qkv(10, 1, 2, 1, 5, 8, 4, 3)
    scale = 0.6
    o, lse = attention_reference(q, k, v, causal=causal, scale=scale)
    s = scale * np.einsum("bhqd,bkd->bhqk", q.astype(np.float64), k[:, 0].astype(np.float64))
    vis = np.array([[not causal or j <= i + 3 for j in range(8)] for i in range(5)])
    # lse = log(sum over visible keys of exp(s))
    direct = np.log(np.where(vis, np.exp(s), 0.0).sum(-1))
    np.testing.assert_allclose(lse, direct, rtol=1e-13)
    # o = sum_j exp(s_ij - lse_i) v_j
    w = np.where(vis, np.exp(s - lse[..., None]), 0.0)
    np.testing.assert_allclose(o, np.einsum("bhqk,bkc->bhqc", w, v[:, 0].astype(np.float64)),
                               rtol=1e-13, atol=1e-15)


def test_split_keys_combine_through_lse():
    # The identity FlashAttention's tiling relies on: attention over K = K1 ++ K2
    # is the LSE-weighted combination of attention over K1 and over K2.
    q, k, v = rand_qkv(12, 2, 4, 2, 6, 11, 8, 5)
    o, lse = attention_reference(q, k, v)
    o1, l1 = attention_reference(q, k[:, :, :4], v[:, :, :4])
    o2, l2 = attention_reference(q, k[:, :, 4:], v[:, :, 4:])
    lc = np.logaddexp(l1, l2)
    np.testing.assert_allclose(lse, lc, rtol=1e-14)
    oc = np.exp(l1 - lc)[..., None] * o1 + np.exp(l2 - lc)[..., None] * o2
    np.testing.assert_allclose(o, oc, rtol=1e-13, atol=1e-15)


def test_key_permutation_invariance_without_mask():
    q, k, v = rand_qkv(13, 1, 2, 2, 4, 9, 4, 4)
    perm = np.random.default_rng(0).permutation(9)
    o, lse = attention_reference(q, k, v)
    o2, lse2 = attention_reference(q, k[:, :, perm], v[:, :, perm])
    np.testing.assert_allclose(o, o2, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(lse, lse2, rtol=1e-14)
    # With the causal mask the order of keys matters.
    oc, _ = attention_reference(q, k, v, causal=True)
    oc2, _ = attention_reference(q, k[:, :, perm], v[:, :, perm], causal=True)
    assert not np.allclose(oc, oc2)


def test_output_is_convex_combination_of_values():
    q, k, v = rand_qkv(14, 2, 2, 1, 8, 8, 4, 6, spread=3.0)
    o, _ = attention_reference(q, k, v, causal=True)
    lo = v.min(axis=2, keepdims=True).astype(np.float64)
    hi = v.max(axis=2, keepdims=True).astype(np.float64)
    assert np.all(o >= np.repeat(lo, 2, axis=1) - 1e-15)
    assert np.all(o <= np.repeat(hi, 2, axis=1) + 1e-15)


@pytest.mark.parametrize("shapes", [
    ((1, 3, 2, 4), (1, 2, 2, 4), (1, 2, 2, 4)),   # Hkv does not divide Hq
    ((1, 2, 2, 4), (1, 2, 2, 8), (1, 2, 2, 4)),   # D mismatch
    ((1, 2, 2, 4), (1, 2, 3, 4), (1, 2, 2, 4)),   # Nk mismatch between k and v
    ((2, 2, 2, 4), (1, 2, 2, 4), (1, 2, 2, 4)),   # batch mismatch
    ((2, 2, 4), (2, 2, 4), (2, 2, 4)),            # rank 3
], ids=["hq%hkv", "d", "nk", "batch", "rank"])
def test_rejects_bad_shapes(shapes):
    q, k, v = (np.zeros(s) for s in shapes)
    with pytest.raises(ValueError):
        attention_reference(q, k, v)


# ---------------------------------------------------------------------------
# The backward oracle: gradients of sum(dO * O), against finite differences.
# ---------------------------------------------------------------------------

BACKWARD_SHAPES = [
    # B, Hq, Hkv, Nq, Nk, D, Dv, causal
    (1, 1, 1, 3, 3, 4, 4, False),
    (1, 1, 1, 4, 4, 3, 3, True),      # square causal
    (1, 2, 1, 5, 3, 3, 2, True),      # Nq > Nk causal: rows 0 and 1 see no key; GQA 2
    (2, 4, 2, 3, 6, 2, 3, True),      # Nq < Nk causal, GQA 2, Dv != D, batch 2
    (1, 3, 1, 4, 5, 3, 5, False),     # MQA, Dv != D
    (1, 2, 2, 6, 2, 2, 2, True),      # four of six rows fully masked
]


def _bsid(s):
    return "B%d-Hq%d-Hkv%d-Nq%d-Nk%d-D%d-Dv%d-%s" % (s[:7] + ("causal" if s[7] else "full",))


def _central_differences(loss, arrays, index, eps=1e-5):
    """d loss / d arrays[index], element by element."""
    x = arrays[index]
    grad = np.zeros_like(x)
    for pos in np.ndindex(*x.shape):
        saved = x[pos]
        x[pos] = saved + eps
        up = loss(*arrays)
        x[pos] = saved - eps
        down = loss(*arrays)
        x[pos] = saved
        grad[pos] = (up - down) / (2 * eps)
    return grad


@pytest.mark.parametrize("scale", [None, 0.7], ids=["defscale", "scale0.7"])
@pytest.mark.parametrize("shape", BACKWARD_SHAPES, ids=[_bsid(s) for s in BACKWARD_SHAPES])
def test_backward_matches_finite_differences(shape, scale):
    b, hq, hkv, nq, nk, d, dv, causal = shape
    rng = np.random.default_rng(sum(shape[:7]) * 13 + int(causal))
    q = rng.standard_normal((b, hq, nq, d))
    k = rng.standard_normal((b, hkv, nk, d))
    v = rng.standard_normal((b, hkv, nk, dv))
    do = rng.standard_normal((b, hq, nq, dv))
    with np.errstate(all="raise"):
        grads = attention_backward_reference(q, k, v, do, causal=causal, scale=scale)

    def loss(q_, k_, v_):
        return float(np.sum(do * attention_reference(q_, k_, v_, causal=causal, scale=scale)[0]))

    arrays = [q.copy(), k.copy(), v.copy()]
    for index, (name, analytic) in enumerate(zip(("dq", "dk", "dv"), grads)):
        assert analytic.shape == arrays[index].shape, name
        numeric = _central_differences(loss, arrays, index)
        np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-8, err_msg=name)
        assert np.abs(numeric).max() > 1e-3, "%s: the check would pass on zeros" % name


def test_backward_fully_masked_rows_are_zero_not_nan():
    # Causal Nq = 6 > Nk = 2: rows 0..3 see no key (LSE = -inf, O = 0).
    rng = np.random.default_rng(21)
    q, k, v = rng.standard_normal((1, 2, 6, 4)), rng.standard_normal((1, 1, 2, 4)), rng.standard_normal((1, 1, 2, 3))
    do = rng.standard_normal((1, 2, 6, 3))
    o, lse = attention_reference(q, k, v, causal=True)
    assert np.all(np.isneginf(lse[:, :, :4]))
    with np.errstate(all="raise"):
        dq, dk, dv = attention_backward_reference(q, k, v, do, causal=True, o=o, lse=lse)
    assert np.all(dq[:, :, :4] == 0.0)
    assert np.isfinite(dq).all() and np.isfinite(dk).all() and np.isfinite(dv).all()
    # Their dO does not reach dK or dV either.
    do2 = do.copy()
    do2[:, :, :4] = 1e3
    _, dk2, dv2 = attention_backward_reference(q, k, v, do2, causal=True, o=o, lse=lse)
    np.testing.assert_array_equal(dk, dk2)
    np.testing.assert_array_equal(dv, dv2)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_backward_gqa_sums_the_group(causal):
    # Hq = 6 over Hkv = 2: the oracle's dK, dV equal the repeated-head
    # problem's gradients summed over each group of 3.
    rng = np.random.default_rng(22)
    q, k, v = rng.standard_normal((2, 6, 5, 4)), rng.standard_normal((2, 2, 7, 4)), rng.standard_normal((2, 2, 7, 3))
    do = rng.standard_normal((2, 6, 5, 3))
    dq, dk, dv = attention_backward_reference(q, k, v, do, causal=causal)
    dq2, dk2, dv2 = attention_backward_reference(q, np.repeat(k, 3, axis=1), np.repeat(v, 3, axis=1), do,
                                                 causal=causal)
    np.testing.assert_allclose(dq, dq2, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(dk, dk2.reshape(2, 2, 3, 7, 4).sum(axis=2), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dv, dv2.reshape(2, 2, 3, 7, 3).sum(axis=2), rtol=1e-12, atol=1e-14)


def test_backward_uses_the_given_output_and_lse():
    # The op takes O and LSE as inputs: D = rowsum(dO * O) uses the given O,
    # P = exp(S - LSE) the given LSE. With the exact ones, nothing changes;
    # with a perturbed O, dQ and dK move and dV does not.
    rng = np.random.default_rng(23)
    q, k, v = rng.standard_normal((1, 2, 4, 3)), rng.standard_normal((1, 2, 5, 3)), rng.standard_normal((1, 2, 5, 2))
    do = rng.standard_normal((1, 2, 4, 2))
    o, lse = attention_reference(q, k, v, causal=True)
    exact = attention_backward_reference(q, k, v, do, causal=True)
    given = attention_backward_reference(q, k, v, do, causal=True, o=o, lse=lse)
    for a, g in zip(exact, given):
        np.testing.assert_allclose(a, g, rtol=1e-14, atol=1e-15)
    moved = attention_backward_reference(q, k, v, do, causal=True, o=o + 0.01, lse=lse)
    assert not np.allclose(moved[0], exact[0]) and not np.allclose(moved[1], exact[1])
    np.testing.assert_array_equal(moved[2], given[2])


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_backward_zero_keys(causal):
    q = np.ones((1, 2, 3, 4))
    k, v = np.zeros((1, 1, 0, 4)), np.zeros((1, 1, 0, 5))
    do = np.ones((1, 2, 3, 5))
    with np.errstate(all="raise"):
        dq, dk, dv = attention_backward_reference(q, k, v, do, causal=causal)
    assert dq.shape == q.shape and dk.shape == k.shape and dv.shape == v.shape
    assert np.all(dq == 0.0)


def test_backward_rejects_a_mismatched_grad_output():
    q, k, v = np.zeros((1, 2, 3, 4)), np.zeros((1, 1, 5, 4)), np.zeros((1, 1, 5, 2))
    with pytest.raises(ValueError):
        attention_backward_reference(q, k, v, np.zeros((1, 2, 3, 4)))


# ---------------------------------------------------------------------------
# paged_attention_reference (flash.paged_attention)
# ---------------------------------------------------------------------------

def brute_force_paged(q, k_cache, v_cache, table, lens, causal=False, scale=None):
    """Key by key through the block table, in plain Python floats."""
    B, Hq, Nq, D = q.shape
    P, S, Hkv, _ = k_cache.shape
    Dv = v_cache.shape[3]
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    o = np.zeros((B, Hq, Nq, Dv))
    lse = np.full((B, Hq, Nq), -math.inf)
    for b in range(B):
        n = int(lens[b])
        for h in range(Hq):
            g = h // (Hq // Hkv)
            for i in range(Nq):
                keys = [t for t in range(n) if not causal or t <= i + n - Nq]
                if not keys:
                    continue
                rows = [(int(table[b][t // S]), t % S) for t in keys]
                s = [scale * math.fsum(float(q[b, h, i, d]) * float(k_cache[p, sl, g, d])
                                       for d in range(D)) for p, sl in rows]
                m = max(s)
                w = [math.exp(x - m) for x in s]
                total = math.fsum(w)
                for e in range(Dv):
                    o[b, h, i, e] = math.fsum(wj * float(v_cache[p, sl, g, e])
                                              for wj, (p, sl) in zip(w, rows)) / total
                lse[b, h, i] = m + math.log(total)
    return o, lse


def _paged_inputs(seed, nan_fill):
    """Two sequences (lengths 5 and 0) and one of 7, pages of 3 shuffled;
    every slot no sequence owns holds `nan_fill`."""
    from flash_mlir.oracle import gather_pages  # noqa: F401
    rng = np.random.default_rng(seed)
    P, S, Hkv, D, Dv = 7, 3, 2, 4, 3
    lens = np.array([5, 0, 7])
    table = np.array([[4, 1, -9], [99, 99, 99], [0, 6, 2]])   # past the used pages: garbage
    k = np.full((P, S, Hkv, D), nan_fill)
    v = np.full((P, S, Hkv, Dv), nan_fill)
    for b, n in enumerate(lens):
        for t in range(n):
            k[table[b][t // S], t % S] = rng.standard_normal((Hkv, D))
            v[table[b][t // S], t % S] = rng.uniform(-1, 1, (Hkv, Dv))
    q = rng.standard_normal((3, 4, 2, D))
    return q, k, v, table, lens


@pytest.mark.parametrize("causal", [False, True])
def test_paged_matches_brute_force(causal):
    from flash_mlir.oracle import paged_attention_reference
    q, k, v, table, lens = _paged_inputs(5, np.nan)
    o, lse = paged_attention_reference(q, k, v, table, lens, causal=causal)
    bo, blse = brute_force_paged(q, k, v, table, lens, causal=causal)
    assert not np.isnan(o).any() and not np.isnan(lse).any()
    np.testing.assert_allclose(o, bo, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lse, blse, rtol=1e-12, atol=1e-12)
    assert (o[1] == 0).all() and np.isneginf(lse[1]).all()         # length 0


def test_paged_equals_contiguous_attention():
    """A paged cache holds the same attention as the contiguous K/V it was cut from."""
    from flash_mlir.oracle import gather_pages, paged_attention_reference
    q, k, v, table, lens = _paged_inputs(6, 0.0)
    o, lse = paged_attention_reference(q, k, v, table, lens, causal=True, scale=0.3)
    keys, values = gather_pages(k, table, lens), gather_pages(v, table, lens)
    for b in range(len(lens)):
        ob, lb = attention_reference(q[b:b + 1], keys[b][None], values[b][None], causal=True,
                                     scale=0.3)
        np.testing.assert_array_equal(o[b], ob[0])
        np.testing.assert_array_equal(lse[b], lb[0])
    assert keys[0].shape == (2, 5, 4) and keys[1].shape == (2, 0, 4)


def test_paged_clamps_caller_errors():
    """A length past M*S and used entries outside [0, P): clamped, as documented."""
    from flash_mlir.oracle import paged_attention_reference
    q, k, v, table, lens = _paged_inputs(7, 0.5)
    bad_table, bad_lens = table.copy(), lens.copy()
    bad_table[2] = [-4, 6, 70]        # -> pages 0, 6, 6
    bad_lens[2] = 100                  # -> 9 keys
    o, lse = paged_attention_reference(q, k, v, bad_table, bad_lens)
    fixed = table.copy()
    fixed[2] = [0, 6, 6]
    fo, flse = paged_attention_reference(q, k, v, fixed, np.array([5, 0, 9]))
    np.testing.assert_array_equal(o, fo)
    np.testing.assert_array_equal(lse, flse)
