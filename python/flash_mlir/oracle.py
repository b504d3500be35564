"""Float64 numpy oracle for ``flash.attention`` and ``flash.attention_backward``.

Written from the op's specification only (it shares no code with the compiler):

* Layout B x H x N x D.  q: B x Hq x Nq x D, k: B x Hkv x Nk x D,
  v: B x Hkv x Nk x Dv; result o: B x Hq x Nq x Dv, lse: B x Hq x Nq.
* S = scale * Q K^T, ``scale`` defaults to 1/sqrt(D).
* GQA/MQA: query head h reads kv head h // (Hq // Hkv).
* ``causal`` is aligned bottom-right: query row i sees key j iff
  j <= i + (Nk - Nq).
* P = softmax of S over the visible keys, O = P V,
  LSE = log(sum_j exp(S_ij)) over visible keys (natural log, scaled domain).
* A row without any visible key (causal with Nq > Nk, or Nk == 0) gives
  O = 0 and LSE = -inf; never NaN.

The backward (:func:`attention_backward_reference`) is the gradient of
``sum(dO * O)`` with respect to q, k and v: with P recomputed from LSE,
dV = P^T dO, dP = dO V^T, D = rowsum(dO * O), dS = P * (dP - D),
dQ = scale dS K, dK = scale dS^T Q; under GQA a kv head's dK and dV sum
over its query heads.  A row without a visible key contributes nothing.
``python/tests/test_oracle.py`` checks it against central finite
differences of :func:`attention_reference`.

``paged_attention_reference`` is ``flash.paged_attention``: key t of
sequence b (t < seq_lens[b]) is slot t % S of page block_table[b][t // S]
of the P x S x Hkv x D caches, and the attention of sequence b is the above
over its seq_lens[b] keys (causal: row i sees t <= i + seq_lens[b] - Nq).
Slots and pages outside that, and table entries past the used pages, are
never read.  Caller errors get the CPU lowerings' documented behaviour:
the length is clamped to [0, M*S] and a used page index to [0, P - 1].
"""

import math

import numpy as np

__all__ = ["attention_reference", "attention_backward_reference", "causal_visible_mask",
           "paged_attention_reference", "gather_pages"]


def causal_visible_mask(nq, nk, causal):
    """Boolean (nq, nk) array: True where query i may attend key j."""
    if not causal:
        return np.ones((nq, nk), dtype=bool)
    i = np.arange(nq)[:, None]
    j = np.arange(nk)[None, :]
    return j <= i + (nk - nq)


def _check_shapes(q, k, v):
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.ndim != 4:
            raise ValueError("%s must be rank 4 (B x H x N x D), got shape %s" % (name, t.shape))
    b, hq, nq, d = q.shape
    bk, hkv, nk, dk = k.shape
    bv, hv, nv, dv = v.shape
    if not (b == bk == bv):
        raise ValueError("batch mismatch: q %d, k %d, v %d" % (b, bk, bv))
    if hkv != hv:
        raise ValueError("k has %d heads but v has %d" % (hkv, hv))
    if nk != nv:
        raise ValueError("k has %d keys but v has %d" % (nk, nv))
    if d != dk:
        raise ValueError("q head dim %d != k head dim %d" % (d, dk))
    if hkv == 0 or hq % hkv != 0:
        raise ValueError("Hkv (%d) must divide Hq (%d)" % (hkv, hq))
    return b, hq, hkv, nq, nk, d, dv


def attention_reference(q, k, v, causal=False, scale=None):
    """Return ``(o, lse)`` in float64.

    ``o`` has shape (B, Hq, Nq, Dv), ``lse`` has shape (B, Hq, Nq).
    ``scale=None`` means 1/sqrt(D).  Pass the exact scale the compiled op
    uses (e.g. ``float(np.float32(s))`` for an f32 attribute).
    """
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    b, hq, hkv, nq, nk, d, dv = _check_shapes(q, k, v)
    if scale is None:
        scale = 1.0 / math.sqrt(d) if d > 0 else 1.0
    scale = float(scale)

    o = np.zeros((b, hq, nq, dv), dtype=np.float64)
    lse = np.full((b, hq, nq), -np.inf, dtype=np.float64)
    if nq == 0 or nk == 0:
        return o, lse

    group = hq // hkv
    visible = causal_visible_mask(nq, nk, causal)          # (nq, nk)
    any_visible = visible.any(axis=1)                       # (nq,)

    for h in range(hq):
        kvh = h // group
        kh = k[:, kvh]                                      # (b, nk, d)
        vh = v[:, kvh]                                      # (b, nk, dv)
        s = scale * np.matmul(q[:, h], np.swapaxes(kh, -1, -2))   # (b, nq, nk)
        s = np.where(visible[None], s, -np.inf)
        # Row max over visible keys; rows with no visible key use 0 so that
        # the arithmetic below stays finite, and are overwritten afterwards.
        m = np.max(s, axis=-1, keepdims=True)               # (b, nq, 1)
        m = np.where(np.isfinite(m), m, 0.0)
        p = np.exp(s - m)                                   # exp(-inf) == 0 for masked
        l = np.sum(p, axis=-1, keepdims=True)               # (b, nq, 1)
        safe_l = np.where(l > 0.0, l, 1.0)
        oh = np.matmul(p, vh) / safe_l
        lh = (m + np.log(safe_l))[..., 0]
        rows_ok = any_visible[None, :] & (l[..., 0] > 0.0)
        o[:, h] = np.where(rows_ok[..., None], oh, 0.0)
        lse[:, h] = np.where(rows_ok, lh, -np.inf)
    return o, lse


def attention_backward_reference(q, k, v, do, causal=False, scale=None, o=None, lse=None):
    """Return ``(dq, dk, dv)`` in float64: the gradients of ``sum(do * O)``.

    ``do`` has O's shape (B, Hq, Nq, Dv).  ``o`` and ``lse`` are the
    forward's results as the compiled op receives them (e.g. O rounded to
    the element type, LSE in f32); when left out they are computed here in
    float64, which makes the result the exact gradient of
    :func:`attention_reference`.  The formulas are the op's: P = exp(S - LSE)
    on visible keys (0 on rows whose LSE is -inf), D = rowsum(do * o).
    """
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    do = np.asarray(do, dtype=np.float64)
    b, hq, hkv, nq, nk, d, dv = _check_shapes(q, k, v)
    if do.shape != (b, hq, nq, dv):
        raise ValueError("do must have O's shape %s, got %s" % ((b, hq, nq, dv), do.shape))
    if scale is None:
        scale = 1.0 / math.sqrt(d) if d > 0 else 1.0
    scale = float(scale)
    if o is None or lse is None:
        o_ref, lse_ref = attention_reference(q, k, v, causal=causal, scale=scale)
        o = o_ref if o is None else o
        lse = lse_ref if lse is None else lse
    o = np.asarray(o, dtype=np.float64)
    lse = np.asarray(lse, dtype=np.float64)

    dq = np.zeros(q.shape)
    dk = np.zeros(k.shape)
    dvv = np.zeros(v.shape)
    if nq == 0 or nk == 0:
        return dq, dk, dvv
    group = hq // hkv
    visible = causal_visible_mask(nq, nk, causal)          # (nq, nk)
    for h in range(hq):
        kvh = h // group
        kh, vh, qh, doh = k[:, kvh], v[:, kvh], q[:, h], do[:, h]
        s = scale * np.matmul(qh, np.swapaxes(kh, -1, -2))          # (b, nq, nk)
        seen = np.isfinite(lse[:, h])                                # (b, nq)
        shift = np.where(seen, lse[:, h], 0.0)[..., None]
        keep = visible[None] & seen[..., None]
        p = np.where(keep, np.exp(np.where(keep, s - shift, 0.0)), 0.0)
        dvv[:, kvh] += np.matmul(np.swapaxes(p, -1, -2), doh)
        dp = np.matmul(doh, np.swapaxes(vh, -1, -2))
        delta = np.sum(doh * o[:, h], axis=-1, keepdims=True)
        ds = p * (dp - delta)
        dq[:, h] = scale * np.matmul(ds, kh)
        dk[:, kvh] += scale * np.matmul(np.swapaxes(ds, -1, -2), qh)
    return dq, dk, dvv


def gather_pages(cache, block_table, seq_lens):
    """Per sequence b, the (Hkv, len_b, D) keys (or values) it owns, read
    through the block table: key t is cache[table[b][t // S], t % S].
    len_b = clamp(seq_lens[b], 0, M*S); a page index outside [0, P) is
    clamped (both are the caller's error, handled as the CPU lowerings do).
    Only the first ceil(len_b / S) table entries are read."""
    cache = np.asarray(cache, dtype=np.float64)
    table = np.asarray(block_table, dtype=np.int64)
    lens = np.asarray(seq_lens, dtype=np.int64)
    if cache.ndim != 4 or table.ndim != 2 or lens.ndim != 1:
        raise ValueError("cache P x S x H x D, block_table B x M, seq_lens B expected")
    num_pages, page_size = cache.shape[0], cache.shape[1]
    capacity = table.shape[1] * page_size
    out = []
    for b in range(table.shape[0]):
        n = int(min(max(lens[b], 0), capacity))
        t = np.arange(n)
        pages = np.clip(table[b, t // page_size], 0, num_pages - 1) if n else t
        rows = cache[pages, t % page_size] if n else np.zeros((0,) + cache.shape[2:])
        out.append(np.swapaxes(rows, 0, 1))          # (H, n, D)
    return out


def paged_attention_reference(q, k_cache, v_cache, block_table, seq_lens, causal=False,
                              scale=None):
    """Return ``(o, lse)`` of ``flash.paged_attention`` in float64.

    q: B x Hq x Nq x D; k_cache: P x S x Hkv x D; v_cache: P x S x Hkv x Dv;
    block_table: B x M (int); seq_lens: B (int).  ``o`` is B x Hq x Nq x Dv,
    ``lse`` B x Hq x Nq.
    """
    q = np.asarray(q, dtype=np.float64)
    b, hq, nq, d = q.shape
    keys = gather_pages(k_cache, block_table, seq_lens)
    values = gather_pages(v_cache, block_table, seq_lens)
    dv = np.asarray(v_cache).shape[3]
    o = np.zeros((b, hq, nq, dv), dtype=np.float64)
    lse = np.full((b, hq, nq), -np.inf, dtype=np.float64)
    for i in range(b):
        oi, li = attention_reference(q[i:i + 1], keys[i][None], values[i][None],
                                     causal=causal, scale=scale)
        o[i], lse[i] = oi[0], li[0]
    return o, lse
