"""flash_mlir.torch.scaled_dot_product_attention without a GPU: the argument
checking (what is refused, named), the causal alignment mapping onto the
bottom-right kernels, and (where torch is installed) the fallback and the
errors on CPU tensors. CI has no torch: those tests skip."""

import itertools

import pytest

from flash_mlir.torch import sdpa
from flash_mlir.torch.sdpa import Unsupported, causal_segments, check_call, visible

OK = dict(q_shape=(2, 8, 100, 64), k_shape=(2, 2, 120, 64), v_shape=(2, 2, 120, 64),
          dtypes=("bf16",) * 3, device_type="cuda", attn_mask_given=False, dropout_p=0.0,
          scale=None, enable_gqa=True, causal_alignment="top_left", head_dims=(64, 128))


def call(**change):
    args = dict(OK)
    args.update(change)
    check_call(**args)


def test_a_supported_call_passes():
    call()
    call(q_shape=(8, 100, 64), k_shape=(8, 120, 64), v_shape=(8, 120, 64), enable_gqa=False)
    call(dtypes=("f16",) * 3, scale=0.5, causal_alignment="bottom_right")


@pytest.mark.parametrize("change, argument, text", [
    (dict(attn_mask_given=True), "attn_mask", "attn_mask"),
    (dict(dropout_p=0.1), "dropout_p", "dropout_p=0.1"),
    (dict(dtypes=("f32",) * 3), "query", "dtype f32"),
    (dict(device_type="cpu"), "query", "device cpu"),
    (dict(q_shape=(2, 8, 100, 96), k_shape=(2, 2, 120, 96), v_shape=(2, 2, 120, 96)),
     "query", "head dimension 96"),
    (dict(v_shape=(2, 2, 120, 128)), "value", "value head dimension 128"),
    (dict(q_shape=(1, 2, 8, 100, 64)), "query", "rank"),
    (dict(scale=-1.0), "scale", "scale=-1.0"),
])
def test_unsupported_calls_name_the_argument(change, argument, text):
    with pytest.raises(Unsupported) as e:
        call(**change)
    assert e.value.argument == argument
    assert text in str(e.value)
    assert "not supported yet" in str(e.value) and "fallback=True" in str(e.value)
    assert isinstance(e.value, NotImplementedError)


@pytest.mark.parametrize("change, text", [
    (dict(enable_gqa=False), "enable_gqa=True"),
    (dict(q_shape=(2, 3, 100, 64)), "multiple of key/value heads"),
    (dict(k_shape=(2, 2, 120, 32), v_shape=(2, 2, 120, 32)), "head dimensions differ"),
    (dict(k_shape=(2, 2, 110, 64)), "shapes do not agree"),
    (dict(dtypes=("bf16", "f16", "bf16")), "share a dtype"),
    (dict(causal_alignment="center"), "causal_alignment"),
])
def test_calls_sdpa_refuses_too_are_value_errors(change, text):
    with pytest.raises(ValueError, match=text):
        call(**change)


@pytest.mark.parametrize("nq, nk", list(itertools.product([1, 2, 5, 8, 13], [1, 3, 5, 8, 21])))
@pytest.mark.parametrize("alignment", ["top_left", "bottom_right"])
@pytest.mark.parametrize("is_causal", [True, False])
def test_causal_segments_compute_sdpa_masks(nq, nk, alignment, is_causal):
    """Each query row is computed once, by a bottom-right kernel call, and
    sees exactly the keys SDPA's alignment gives it."""
    rows = [None] * nq
    for seg in causal_segments(nq, nk, is_causal, alignment):
        local_q = seg.row_end - seg.row_begin
        for r in range(seg.row_begin, seg.row_end):
            assert rows[r] is None
            i = r - seg.row_begin  # the kernel's row, bottom-right over seg.keys keys
            rows[r] = max(0, min(seg.keys, i + seg.keys - local_q + 1)) if seg.causal \
                else seg.keys
    assert rows == visible(nq, nk, is_causal, alignment)


def test_visible_is_sdpa_top_left_and_bottom_right():
    assert visible(2, 4, True, "top_left") == [1, 2]
    assert visible(2, 4, True, "bottom_right") == [3, 4]
    assert visible(4, 2, True, "top_left") == [1, 2, 2, 2]
    assert visible(4, 2, True, "bottom_right") == [0, 0, 1, 2]
    assert len(causal_segments(4, 2, True, "top_left")) == 2
    assert causal_segments(2, 4, True, "top_left") == [sdpa.Segment(0, 2, 2, True)]


def test_cpu_tensors_are_refused_or_fall_back_with_a_warning():
    torch = pytest.importorskip("torch")
    q = torch.randn(1, 2, 8, 64).to(torch.bfloat16)
    with pytest.raises(Unsupported, match="device cpu"):
        sdpa.scaled_dot_product_attention(q, q, q, library=object())
    with pytest.warns(UserWarning, match="torch's SDPA runs this call"):
        o = sdpa.scaled_dot_product_attention(q, q, q, is_causal=True, fallback=True,
                                              library=object())
    ref = torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
    assert torch.equal(o, ref)
    assert any("device cpu" in r for r in sdpa.fallback_counts())


def test_hf_registration_with_a_stand_in_transformers(monkeypatch):
    """register_hf registers the attention function and SDPA's mask builder
    under "flash_mlir" (a stand-in for transformers: CI has none)."""
    import sys
    import types
    from flash_mlir.torch import hf
    registered = {}

    class Interface:
        def __init__(self, kind):
            self.kind = kind

        def register(self, name, fn):
            registered[(self.kind, name)] = fn

    fake = types.ModuleType("transformers")
    fake.AttentionInterface = Interface("attention")
    masking = types.ModuleType("transformers.masking_utils")
    masking.AttentionMaskInterface = Interface("mask")
    masking.sdpa_mask = object()
    monkeypatch.setitem(sys.modules, "transformers", fake)
    monkeypatch.setitem(sys.modules, "transformers.masking_utils", masking)
    assert hf.register_hf() == hf.NAME == "mlir_attention"
    assert "flash" not in hf.NAME  # transformers takes such names for FlashAttention builds
    assert registered[("attention", hf.NAME)] is hf.attention_forward
    assert registered[("mask", hf.NAME)] is masking.sdpa_mask


def test_hf_attention_forward_refuses_a_padding_mask_naming_it():
    torch = pytest.importorskip("torch")
    from flash_mlir.torch import hf

    class Module:
        is_causal = True

    q = torch.randn(1, 2, 4, 64)
    with pytest.raises(Unsupported, match="attn_mask"):
        hf.attention_forward(Module(), q, q, q, torch.zeros(1, 1, 4, 4))


@pytest.mark.parametrize("nq, nk, hq, hkv", [(7, 3, 2, 2), (13, 5, 4, 2), (9, 8, 2, 1),
                                             (6, 1, 1, 1)])
def test_top_left_backward_in_one_padded_call_is_exact(nq, nk, hq, hkv):
    """Top-left causal, Nq > Nk: ONE bottom-right causal backward over K, V
    padded with Nq - Nk zero keys, given the true O and LSE (the forward's two
    calls), gives exactly the gradients of the two calls summed (float64
    oracle: the kernels' formulas), so dK, dV need no second rounding."""
    import numpy as np
    from flash_mlir import oracle
    assert sdpa.padded_backward_keys(nq, nk, True, "top_left") == nq - nk
    rng = np.random.default_rng(nq * 100 + nk)
    d = 4
    q = rng.standard_normal((2, hq, nq, d))
    k = rng.standard_normal((2, hkv, nk, d))
    v = rng.standard_normal((2, hkv, nk, d))
    do = rng.standard_normal((2, hq, nq, d))
    # The forward's segments (causal_segments): O and LSE per row.
    segs = causal_segments(nq, nk, True, "top_left")
    outs = [oracle.attention_reference(q[:, :, s.row_begin:s.row_end], k[:, :, :s.keys],
                                       v[:, :, :s.keys], causal=s.causal) for s in segs]
    o = np.concatenate([x[0] for x in outs], axis=2)
    lse = np.concatenate([x[1] for x in outs], axis=2)
    # Two backward calls, summed exactly (what is correct).
    want = [np.zeros_like(t) for t in (q, k, v)]
    for s in segs:
        r = slice(s.row_begin, s.row_end)
        dq, dk, dv = oracle.attention_backward_reference(
            q[:, :, r], k, v, do[:, :, r], causal=s.causal, o=o[:, :, r], lse=lse[:, :, r])
        want[0][:, :, r] += dq
        want[1] += dk
        want[2] += dv
    # One call over the padded keys (what the op runs).
    pad = np.zeros((2, hkv, nq - nk, d))
    dq, dk, dv = oracle.attention_backward_reference(
        q, np.concatenate((k, pad), 2), np.concatenate((v, pad), 2), do, causal=True, o=o,
        lse=lse)
    np.testing.assert_allclose(dq, want[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dk[:, :, :nk], want[1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dv[:, :, :nk], want[2], rtol=1e-12, atol=1e-12)
    # And both are the gradient of top-left causal attention (the oracle's
    # forward over the padded keys is not: zero keys would enter its softmax).
    assert not np.allclose(oracle.attention_reference(
        q, np.concatenate((k, pad), 2), np.concatenate((v, pad), 2), causal=True)[0], o)


def test_padded_backward_only_for_top_left_with_more_queries():
    assert sdpa.padded_backward_keys(8, 3, True, "top_left") == 5
    for args in ((8, 3, True, "bottom_right"), (8, 3, False, "top_left"),
                 (3, 8, True, "top_left"), (8, 8, True, "top_left"), (8, 0, True, "top_left")):
        assert sdpa.padded_backward_keys(*args) == 0


class _CpuLibrary:
    """A KernelLibrary stand-in on the CPU (the float64 oracle: the kernels'
    bottom-right mask and backward formulas), counting backward calls."""

    def __init__(self):
        self.backward_calls = []

    def attention(self, q, k, v, causal=False, scale=None, return_lse=False, out=None):
        import torch
        from flash_mlir import oracle
        o, lse = oracle.attention_reference(*(t.detach().numpy() for t in (q, k, v)),
                                            causal=causal, scale=scale)
        o = torch.from_numpy(o).to(q.dtype)
        return (o, torch.from_numpy(lse).float()) if return_lse else o

    def attention_backward(self, q, k, v, o, do, lse, causal=False, scale=None,
                           deterministic=False):
        import torch
        from flash_mlir import oracle
        self.backward_calls.append((tuple(q.shape), tuple(k.shape), causal))
        grads = oracle.attention_backward_reference(
            *(t.detach().numpy() for t in (q, k, v, do)), causal=causal, scale=scale,
            o=o.detach().numpy(), lse=lse.numpy())
        return tuple(torch.from_numpy(g).to(q.dtype) for g in grads)


@pytest.mark.parametrize("very_negative", [False, True])
def test_top_left_op_backward_is_one_padded_call(monkeypatch, very_negative):
    """torch.ops.flash_mlir.attention_top_left_with_lse over a CPU stand-in
    library: its gradients equal autograd's through top-left causal attention
    (float64), from one backward call over Nq x Nq padded keys; with a row's
    LSE below TOP_LEFT_MIN_LSE, from the two calls."""
    torch = pytest.importorskip("torch")
    import flash_mlir.torch as ft
    monkeypatch.setattr(ft, "_TORCH_OP_LIBRARY", None)
    lib = _CpuLibrary()
    ft.register_torch_op(lib)
    b, hq, hkv, nq, nk, d = 2, 4, 2, 11, 4, 8
    gen = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(b, h, n, d, dtype=torch.float64, generator=gen)
               for h, n in ((hq, nq), (hkv, nk), (hkv, nk)))
    if very_negative:  # every score of query row 0 far below -40
        q[:, :, 0], k[:] = -20.0, k.abs() + 1.0
    q, k, v = (t.requires_grad_() for t in (q, k, v))
    do = torch.randn(b, hq, nq, d, dtype=torch.float64, generator=gen)
    o, lse = torch.ops.flash_mlir.attention_top_left_with_lse(q, k, v, 0.0)
    grads = torch.autograd.grad(o, (q, k, v), do)
    mask = torch.ones(nq, nk, dtype=torch.bool).tril()
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                                           enable_gqa=True)
    torch.testing.assert_close(o, ref, rtol=1e-10, atol=1e-10)
    for g, r in zip(grads, torch.autograd.grad(ref, (q, k, v), do)):
        torch.testing.assert_close(g, r, rtol=1e-5, atol=1e-5)  # LSE is f32
    assert (float(lse.min()) < ft.TOP_LEFT_MIN_LSE) == very_negative
    if very_negative:
        assert lib.backward_calls == [((b, hq, nk, d), (b, hkv, nk, d), True),
                                      ((b, hq, nq - nk, d), (b, hkv, nk, d), False)]
    else:
        assert lib.backward_calls == [((b, hq, nq, d), (b, hkv, nq, d), True)]


def test_op_output_is_in_q_layout_as_the_fakes_say():
    """The ops return O like empty_like(q): the library's O when it is (a plan
    that maps O allocates it so), else a copy in q's layout (sm_80 plans)."""
    torch = pytest.importorskip("torch")
    from flash_mlir.torch import _in_layout_of
    q = torch.randn(2, 16, 4, 8).transpose(1, 2)           # B×H×N×D view of B×N×H×D
    like = torch.empty_like(q)
    assert _in_layout_of(like, q) is like
    o = torch.randn(q.shape)                                 # contiguous (sm_80's O)
    moved = _in_layout_of(o, q)
    assert moved.stride() == q.stride() and torch.equal(moved, o)
    qs = torch.randn(1, 4, 32, 8)[:, :, :16]                 # a slice: empty_like is contiguous
    o = torch.randn(qs.shape)
    assert _in_layout_of(o, qs) is o


@pytest.mark.parametrize("causal", [False, True])
def test_eager_gradients_take_the_autograd_function(monkeypatch, causal):
    """An eager call with gradients (flash_mlir.torch.sdpa._run with a
    library) runs the library through eager_attention_function(), not the
    custom op's wrappers: its gradients equal autograd's through the
    reference attention (float64, GQA 4/2), from one backward call; a traced
    call (no library) keeps the custom op."""
    torch = pytest.importorskip("torch")
    import flash_mlir.torch as ft
    monkeypatch.setattr(ft, "_TORCH_OP_LIBRARY", None)
    lib = _CpuLibrary()
    ft.register_torch_op(lib)
    b, hq, hkv, n, d = 2, 4, 2, 7, 8
    gen = torch.Generator().manual_seed(5)
    q, k, v = (torch.randn(b, n, h, d, dtype=torch.float64, generator=gen)
               .transpose(1, 2).requires_grad_() for h in (hq, hkv, hkv))
    do = torch.randn(b, hq, n, d, dtype=torch.float64, generator=gen)
    o = sdpa._run(lib, True, q, k, v, causal, None, "top_left")
    assert type(o.grad_fn).__name__ == "EagerAttentionBackward"
    grads = torch.autograd.grad(o, (q, k, v), do)
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                           enable_gqa=True)
    torch.testing.assert_close(o, ref, rtol=1e-10, atol=1e-10)
    for g, r in zip(grads, torch.autograd.grad(ref, (q, k, v), do)):
        torch.testing.assert_close(g, r, rtol=1e-5, atol=1e-5)  # LSE is f32
    assert lib.backward_calls == [((b, hq, n, d), (b, hkv, n, d), causal)]
    traced = sdpa._run(None, True, q, k, v, causal, None, "top_left")
    assert "EagerAttention" not in type(traced.grad_fn).__name__


def test_backward_copies_strided_tensors_of_one_shape_in_one_op():
    """_contiguous_all: the backward's contiguous inputs with one copy per
    shape (host time): a GPT-2 layer's q, k, v (views of a fused QKV
    projection), O and dO (B×N×H×D memory) come back equal, contiguous and
    in ONE new buffer; a Llama layer's (GQA) in two (q, O, dO and k, v);
    contiguous tensors as they are."""
    torch = pytest.importorskip("torch")
    from flash_mlir.torch import _contiguous_all
    b, n, h, d = 2, 16, 4, 8
    gen = torch.Generator().manual_seed(7)
    qkv = torch.randn(b, n, 3 * h * d, generator=gen)
    q, k, v = (t.view(b, n, h, d).transpose(1, 2) for t in qkv.split(h * d, dim=2))
    o, do = (torch.randn(b, n, h, d, generator=gen).transpose(1, 2) for _ in range(2))
    given = (q, k, v, o, do)
    taken = _contiguous_all(*given)
    assert all(t.is_contiguous() and torch.equal(t, g) for t, g in zip(taken, given))
    assert len({t.untyped_storage().data_ptr() for t in taken}) == 1
    assert {t.untyped_storage().data_ptr() for t in taken}.isdisjoint(
        {t.untyped_storage().data_ptr() for t in given})
    kv = torch.randn(b, n, 2 * 2 * d, generator=gen)
    k2, v2 = (t.view(b, n, 2, d).transpose(1, 2) for t in kv.split(2 * d, dim=2))
    taken = _contiguous_all(q, k2, v2, o, do)
    assert all(t.is_contiguous() and torch.equal(t, g)
               for t, g in zip(taken, (q, k2, v2, o, do)))
    storages = [t.untyped_storage().data_ptr() for t in taken]
    assert storages[0] == storages[3] == storages[4] and storages[1] == storages[2]
    assert storages[0] != storages[1]
    dense = torch.randn(b, h, n, d, generator=gen)
    taken = _contiguous_all(dense, k, dense)
    assert taken[0] is dense and taken[2] is dense and torch.equal(taken[1], k)


def test_eager_backward_hands_the_library_the_tensors_as_they_are(monkeypatch):
    """The eager backward (EagerAttention) hands the library q, k, v, O, dO
    of a GPT-2-style layer (views of one fused QKV projection, the output
    gradient of O.transpose(1, 2)) as they are: KernelLibrary.attention_backward
    copies only what its plan cannot take (one op per shape,
    test_batch_maps.py); the gradients equal autograd's through the
    reference. Fails if the eager backward copies."""
    torch = pytest.importorskip("torch")
    import flash_mlir.torch as ft
    monkeypatch.setattr(ft, "_TORCH_OP_LIBRARY", None)

    class Recording(_CpuLibrary):
        def attention(self, q, k, v, causal=False, scale=None, return_lse=False, out=None):
            o, lse = super().attention(q, k, v, causal, scale, True)
            o = torch.empty_like(q).copy_(o)  # in q's layout, as sm_90a's plans
            return (o, lse) if return_lse else o

        def attention_backward(self, q, k, v, o, do, lse, *args, **kwargs):
            self.inputs = (q, k, v, o, do)
            return super().attention_backward(q, k, v, o, do, lse, *args, **kwargs)

    lib = Recording()
    ft.register_torch_op(lib)
    b, n, h, d = 2, 7, 4, 8
    gen = torch.Generator().manual_seed(9)
    qkv = torch.randn(b, n, 3 * h * d, dtype=torch.float64, generator=gen).requires_grad_()
    q, k, v = (t.view(b, n, h, d).transpose(1, 2) for t in qkv.split(h * d, dim=2))
    o = sdpa._run(lib, True, q, k, v, True, None, "top_left").transpose(1, 2)
    assert o.is_contiguous()  # O in q's (B×N×H×D) memory: HF's transpose back is free
    do = torch.randn(b, n, h, d, dtype=torch.float64, generator=gen)
    (grad,) = torch.autograd.grad(o, qkv, do)
    given_q, given_k, given_v, given_o, given_do = lib.inputs
    for given, view in ((given_q, q), (given_k, k), (given_v, v)):
        assert given.data_ptr() == view.data_ptr() and given.stride() == view.stride()
    assert given_o.transpose(1, 2).is_contiguous()  # O as the forward wrote it
    assert given_do.data_ptr() == do.data_ptr() and given_do.transpose(1, 2).is_contiguous()
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    (want,) = torch.autograd.grad(ref.transpose(1, 2), qkv, do)
    torch.testing.assert_close(grad, want, rtol=1e-5, atol=1e-5)
