"""torch integration: ``torch.ops.flash_mlir.*`` over a KernelLibrary.

(Inside this package ``import torch`` is PyTorch: imports are absolute.)

Ops registered by ``register_torch_op(library)``:

- ``flash_mlir::attention(q, k, v, causal, scale) -> o``: differentiable. It is
  a composite: when autograd will differentiate the call, ``attention_with_lse``
  (the forward also writes LSE, which autograd saves for the backward instead
  of recomputing it); otherwise ``attention_forward`` (no LSE).
- ``flash_mlir::attention_forward(q, k, v, causal, scale) -> o``: the forward.
- ``flash_mlir::attention_with_lse(q, k, v, causal, scale) -> (o, lse)``: the
  forward with its log-sum-exp (B×Hq×Nq f32); differentiable in q, k, v (LSE
  is an output autograd does not differentiate through: its gradient must be
  None).
- ``flash_mlir::attention_top_left_with_lse(q, k, v, scale) -> (o, lse)``:
  causal top-left (SDPA's is_causal) with Nq > Nk > 0, differentiable: two
  forward calls, one backward call over K, V padded with zeros
  (``flash_mlir::attention_top_left_backward``; sdpa.padded_backward_keys).
- ``flash_mlir::paged_attention(q, k_cache, v_cache, block_table, seq_lens,
  causal, scale) -> o``: attention over a paged KV cache (split-KV decode
  kernels; block_table and seq_lens int32 on the device, read only there).
- ``flash_mlir::attention_backward(dout, q, k, v, o, lse, causal, scale,
  deterministic) -> (dq, dk, dv)``: the backward kernels (preprocess, main, dQ
  convert, or the deterministic plan) through ``KernelLibrary.attention_backward``
  (on Hopper sm_90a's plan where the library has one, else sm_80's, whose sm_90
  cubin runs there; ``deterministic`` takes only a deterministic plan, sm_90a's
  or sm_80's, and is an error where the library has none). A library without it
  makes the op, and a backward through ``attention``, raise "not supported
  yet". The backward of ``attention`` takes the deterministic plan when
  ``torch.use_deterministic_algorithms(True)`` is in effect.
- ``flash_mlir::paged_attention(q, k_cache, v_cache, block_table, seq_lens,
  causal, scale) -> o``: split-KV decoding over a paged cache.

Each has a fake (meta) implementation, so torch.compile(fullgraph=True)
traces through them, and none synchronises the host, so CUDA graphs capture
them. ``scale`` <= 0 means 1/sqrt(D). Registering again replaces the library
the ops dispatch to.

Strided q, k, v (B×N×H×D views, innermost dimension contiguous) reach the
forward as they are (KernelLibrary.attention: no copy on sm_90a, O in q's
layout); the backward (KernelLibrary.attention_backward) takes strided q, k,
v, O, dO as they are where the plan's kernels carry their strides (sm_90a
with batch maps, sm_80 with its strided twins from compile --strides
variant: all five) and copies the rest (one op for those of one shape:
_contiguous_all); the custom op's gradients are in q, k, v's layout
(empty_like), as its fake says.

Also here:

- ``scaled_dot_product_attention(query, key, value, attn_mask=None,
  dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False, *,
  causal_alignment="top_left", fallback=False)``: torch's SDPA signature
  (flash_mlir.torch.sdpa; docs/pytorch.md).
- ``eager_attention_function()``: the autograd.Function that eager calls of
  scaled_dot_product_attention with gradients use (attention_with_lse's
  kernels and backward without the custom op's wrappers: host time).
- ``default_library()``: the library the ops use: the registered one, else
  $FLASH_MLIR_BUNDLES, else the bundles the wheel carries (flash_mlir/bundles).
- ``flash_mlir.torch.hf``: the Hugging Face attention implementation
  "mlir_attention" (``register_hf()``; docs/pytorch.md says why not "flash_mlir").
"""

import os

from flash_mlir.torch.sdpa import (Unsupported, causal_segments,  # noqa: F401
                                   fallback_counts, scaled_dot_product_attention)

_TORCH_OP_LIBRARY = None

PACKAGE_BUNDLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                               "bundles")


def default_library():
    """The KernelLibrary the ops dispatch to: the registered one, else one
    opened (and registered) from $FLASH_MLIR_BUNDLES, else from the bundles
    the installed package carries (flash_mlir/bundles/)."""
    if _TORCH_OP_LIBRARY is not None:
        return _TORCH_OP_LIBRARY
    directory = os.environ.get("FLASH_MLIR_BUNDLES") or PACKAGE_BUNDLES
    if not os.path.isdir(directory):
        raise FileNotFoundError(
            f"no kernel bundles: {directory} does not exist. Set FLASH_MLIR_BUNDLES to a "
            "directory compiled by python3 -m flash_mlir.compile (e.g. --out bundles --arch "
            "sm_90a --ops forward,backward), install the wheel (it carries sm_80 and sm_90a "
            "bundles), or call register_torch_op(KernelLibrary(dir))")
    from flash_mlir.runtime.library import KernelLibrary
    library = KernelLibrary(directory)
    register_torch_op(library)
    return library


def use_library(library):
    """Makes `library` the one the ops dispatch to (registering them once)."""
    if library is not _TORCH_OP_LIBRARY:
        register_torch_op(library)


def _scale(scale):
    return scale if scale > 0 else None


def _out_for(q):
    """O in q's layout, as the ops' fakes say (None for contiguous q: the
    library allocates it)."""
    if q.is_contiguous():
        return None
    import torch
    return torch.empty_like(q)


def _in_layout_of(o, q):
    """O as the ops' fakes say it is, in q's layout (empty_like(q)): the
    library's O for strided q (allocated like q where the plan maps O, which
    lets a call like one before be a prepared call), else copied into one."""
    if o.stride() == q.stride():
        return o
    import torch
    like = torch.empty_like(q)
    return o if like.stride() == o.stride() else like.copy_(o)


# The backward's copies of strided tensors a plan cannot take (one op per
# shape): KernelLibrary.attention_backward makes them; kept here for callers.
from flash_mlir.runtime.library import _contiguous_all  # noqa: E402,F401


def register_torch_op(library):
    """Registers the ops above over `library` (a flash_mlir.runtime.KernelLibrary)
    and returns ``torch.ops.flash_mlir.attention``."""
    import torch
    global _TORCH_OP_LIBRARY
    _TORCH_OP_LIBRARY = library
    if hasattr(torch.ops, "flash_mlir") and hasattr(torch.ops.flash_mlir, "attention_with_lse"):
        return torch.ops.flash_mlir.attention

    @torch.library.custom_op("flash_mlir::attention_with_lse", mutates_args=())
    def attention_with_lse(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                           causal: bool = False,
                           scale: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
        o, lse = _TORCH_OP_LIBRARY.attention(q, k, v, causal=causal, scale=_scale(scale),
                                             return_lse=True)
        return _in_layout_of(o, q), lse

    # O has q's layout (empty_like, as KernelLibrary.attention allocates it;
    # the kernels need Dv = D), so the fake's strides are the real ones.
    @attention_with_lse.register_fake
    def _(q, k, v, causal=False, scale=0.0):
        b, hq, nq, _ = q.shape
        return (torch.empty_like(q), q.new_empty((b, hq, nq), dtype=torch.float32))

    if not hasattr(_TORCH_OP_LIBRARY, "attention_backward"):
        def _missing(*args, **kwargs):
            raise NotImplementedError(
                "not supported yet: gradients of flash_mlir::attention (this "
                "library has no attention_backward)")
        _TORCH_OP_LIBRARY.attention_backward = _missing

    @torch.library.custom_op("flash_mlir::attention_backward", mutates_args=())
    def attention_backward(dout: torch.Tensor, q: torch.Tensor, k: torch.Tensor,
                           v: torch.Tensor, o: torch.Tensor, lse: torch.Tensor,
                           causal: bool = False, scale: float = 0.0,
                           deterministic: bool = False
                           ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        # The library takes strided tensors as they are where the plan's
        # kernels carry their strides and copies the rest (one op per shape);
        # the gradients are in q, k, v's layout, as the fake says (the
        # plan's where it writes them so, else copied into it).
        dq, dk, dv = _TORCH_OP_LIBRARY.attention_backward(
            q, k, v, o, dout, lse, causal=causal, scale=_scale(scale),
            deterministic=deterministic)
        return _in_layout_of(dq, q), _in_layout_of(dk, k), _in_layout_of(dv, v)

    @attention_backward.register_fake
    def _(dout, q, k, v, o, lse, causal=False, scale=0.0, deterministic=False):
        return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)

    def setup_context(ctx, inputs, output):
        q, k, v, causal, scale = inputs
        o, lse = output
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.causal, ctx.scale = causal, scale
        ctx.mark_non_differentiable(lse)
        # LSE's gradient is never used: no zero-filled tensor for it.
        ctx.set_materialize_grads(False)

    def backward(ctx, dout, dlse):
        q, k, v, o, lse = ctx.saved_tensors
        # torch.use_deterministic_algorithms(True) selects the backward plan
        # whose results are bitwise identical run to run (no dQ atomics).
        dq, dk, dv = torch.ops.flash_mlir.attention_backward(
            dout, q, k, v, o, lse, ctx.causal, ctx.scale,
            torch.are_deterministic_algorithms_enabled())
        return dq, dk, dv, None, None

    attention_with_lse.register_autograd(backward, setup_context=setup_context)

    # Top-left causal with Nq > Nk (SDPA's is_causal; flash_mlir.torch.sdpa):
    # the forward is two kernel calls (rows [0, Nk) causal, rows [Nk, Nq) over
    # every key), the backward one call over K, V padded with zeros
    # (sdpa.padded_backward_keys says why), so dK, dV are rounded once.
    @torch.library.custom_op("flash_mlir::attention_top_left_with_lse", mutates_args=())
    def attention_top_left_with_lse(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                                    scale: float = 0.0
                                    ) -> tuple[torch.Tensor, torch.Tensor]:
        return _top_left_forward(_TORCH_OP_LIBRARY, q, k, v, scale)

    @attention_top_left_with_lse.register_fake
    def _(q, k, v, scale=0.0):
        b, hq, nq, _ = q.shape
        return (q.new_empty(q.shape), q.new_empty((b, hq, nq), dtype=torch.float32))

    @torch.library.custom_op("flash_mlir::attention_top_left_backward", mutates_args=())
    def attention_top_left_backward(dout: torch.Tensor, q: torch.Tensor, k: torch.Tensor,
                                    v: torch.Tensor, o: torch.Tensor, lse: torch.Tensor,
                                    scale: float = 0.0, deterministic: bool = False
                                    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return _top_left_backward(_TORCH_OP_LIBRARY, dout, q, k, v, o, lse, scale,
                                  deterministic)

    @attention_top_left_backward.register_fake
    def _(dout, q, k, v, o, lse, scale=0.0, deterministic=False):
        return q.new_empty(q.shape), k.new_empty(k.shape), v.new_empty(v.shape)

    def setup_top_left(ctx, inputs, output):
        q, k, v, scale = inputs
        o, lse = output
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.scale = scale
        ctx.mark_non_differentiable(lse)
        ctx.set_materialize_grads(False)

    def backward_top_left(ctx, dout, dlse):
        q, k, v, o, lse = ctx.saved_tensors
        dq, dk, dv = torch.ops.flash_mlir.attention_top_left_backward(
            dout, q, k, v, o, lse, ctx.scale, torch.are_deterministic_algorithms_enabled())
        return dq, dk, dv, None

    attention_top_left_with_lse.register_autograd(backward_top_left,
                                                  setup_context=setup_top_left)

    # The public op: the forward's O. A composite, so autograd (and
    # torch.compile) see attention_with_lse and its saved LSE.
    lib = torch.library.Library("flash_mlir", "FRAGMENT")
    lib.define("attention(Tensor q, Tensor k, Tensor v, bool causal=False, "
               "float scale=0.0) -> Tensor")

    # The forward without LSE: a plain CUDA kernel of the fragment, as
    # paged_attention below (torch.library.custom_op's Python wrapper costs
    # about 20 us of host time a call).
    lib.define("attention_forward(Tensor q, Tensor k, Tensor v, bool causal=False, "
               "float scale=0.0) -> Tensor")

    def attention_forward(q, k, v, causal=False, scale=0.0):
        o = _TORCH_OP_LIBRARY.attention(q, k, v, causal, scale if scale > 0 else None)
        return o if q.is_contiguous() else _in_layout_of(o, q)

    lib.impl("attention_forward", attention_forward, "CUDA")

    @torch.library.register_fake("flash_mlir::attention_forward", lib=lib)
    def _(q, k, v, causal=False, scale=0.0):
        return torch.empty_like(q)

    def attention(q, k, v, causal=False, scale=0.0):
        # Only a call autograd will differentiate pays for writing LSE.
        if torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad):
            return torch.ops.flash_mlir.attention_with_lse(q, k, v, causal, scale)[0]
        return torch.ops.flash_mlir.attention_forward(q, k, v, causal, scale)

    lib.impl("attention", attention, "CompositeImplicitAutograd")

    # Paged attention: a plain CUDA kernel of the fragment (not
    # torch.library.custom_op, whose Python wrapper costs about 20 us of host
    # time a call, measured on the H200), with a fake for tracing.
    lib.define("paged_attention(Tensor q, Tensor k_cache, Tensor v_cache, Tensor block_table, "
               "Tensor seq_lens, bool causal=False, float scale=0.0) -> Tensor")

    def paged_attention(q, k_cache, v_cache, block_table, seq_lens, causal=False, scale=0.0):
        # Positional: the fewest steps to KernelLibrary's prepared call.
        return _TORCH_OP_LIBRARY.paged_attention(q, k_cache, v_cache, block_table, seq_lens,
                                                 causal, scale if scale > 0 else None)

    lib.impl("paged_attention", paged_attention, "CUDA")

    @torch.library.register_fake("flash_mlir::paged_attention", lib=lib)
    def _(q, k_cache, v_cache, block_table, seq_lens, causal=False, scale=0.0):
        return q.new_empty(q.shape[:3] + v_cache.shape[3:])
    global _TORCH_LIBRARY_FRAGMENT
    _TORCH_LIBRARY_FRAGMENT = lib  # the registration lives as long as this module
    return torch.ops.flash_mlir.attention


_TORCH_LIBRARY_FRAGMENT = None

_EAGER_ATTENTION = None


def eager_attention_function():
    """The differentiable forward for eager calls (flash_mlir.torch.sdpa):
    a ``torch.autograd.Function`` over a library, ``apply(q, k, v, causal,
    scale, library) -> o``, with the same kernels, saved tensors and backward
    as ``torch.ops.flash_mlir.attention_with_lse``, but without the custom
    op's Python wrappers. ``torch.library.custom_op`` wraps a differentiable
    op in its own autograd.Function and dispatches the forward and the
    backward through the dispatcher again (two ops, each a Python wrapper):
    on the H200 (2026-12-02) a Hugging Face training step took 7-13% longer
    through the custom op than through this (docs/pytorch.md). torch.compile
    traces the custom op instead (its fakes), so sdpa uses this only when not
    compiling. O is the library's (in q's layout where the plan maps O)."""
    global _EAGER_ATTENTION
    if _EAGER_ATTENTION is not None:
        return _EAGER_ATTENTION
    import torch

    class EagerAttention(torch.autograd.Function):
        @staticmethod
        def forward(ctx, q, k, v, causal, scale, library):
            o, lse = library.attention(q, k, v, causal, _scale(scale), True)
            ctx.save_for_backward(q, k, v, o, lse)
            ctx.causal, ctx.scale, ctx.library = causal, scale, library
            ctx.set_materialize_grads(False)
            return o

        @staticmethod
        def backward(ctx, dout):
            if dout is None:
                return None, None, None, None, None, None
            q, k, v, o, lse = ctx.saved_tensors
            # The library takes strided tensors as they are where the plan's
            # kernels carry their strides (sm_90a's maps, the preprocess's
            # and convert's stride arguments) and copies the rest, one op
            # per shape; gradients in q, k, v's layout where the plan
            # writes them so, else contiguous (autograd accepts either).
            dq, dk, dv = ctx.library.attention_backward(
                q, k, v, o, dout, lse, ctx.causal, _scale(ctx.scale),
                torch.are_deterministic_algorithms_enabled())
            return dq, dk, dv, None, None, None

    if not hasattr(EagerAttention, "apply"):  # pragma: no cover
        raise RuntimeError("torch.autograd.Function without apply")
    _EAGER_ATTENTION = EagerAttention
    return EagerAttention

# A row whose LSE is below this gets two backward calls instead of the padded
# one: a zero key's P = exp(-LSE) must stay far from f32's overflow
# (exp(40) ~ 2e17, times dP - Delta), since dQ adds P·(dP - Delta)·0.
TOP_LEFT_MIN_LSE = -40.0


def _top_left_forward(library, q, k, v, scale):
    """(O, LSE) of top-left causal attention with Nq > Nk > 0: rows [0, Nk)
    causal over the Nk keys (a square: bottom-right is top-left), rows
    [Nk, Nq) over every key. O and LSE contiguous (concatenated)."""
    import torch
    nk = k.shape[2]
    parts = []
    for rows, causal in ((slice(0, nk), True), (slice(nk, None), False)):
        qs = q[:, :, rows]
        parts.append(library.attention(qs, k, v, causal=causal, scale=_scale(scale),
                                       return_lse=True, out=_out_for(qs)))
    return (torch.cat([o for o, _ in parts], dim=2),
            torch.cat([lse for _, lse in parts], dim=2))


def _top_left_backward(library, dout, q, k, v, o, lse, scale, deterministic):
    """dQ, dK, dV of _top_left_forward: one bottom-right causal backward call
    over the Nq x Nq square with K, V padded by Nq - Nk zero rows and the
    forward's O and LSE (flash_mlir.torch.sdpa.padded_backward_keys). Where
    a row's LSE is below TOP_LEFT_MIN_LSE (checked on the host, except while
    a CUDA graph is being captured), the two calls' backwards summed instead."""
    import torch
    b, hkv, nk, d = k.shape
    nq = q.shape[2]
    q, k, v, o, dout = _contiguous_all(q, k, v, o, dout)
    s = _scale(scale)
    capturing = q.is_cuda and torch.cuda.is_current_stream_capturing()
    if not capturing and float(lse.min()) < TOP_LEFT_MIN_LSE:
        top = library.attention_backward(
            q[:, :, :nk].contiguous(), k, v, o[:, :, :nk].contiguous(),
            dout[:, :, :nk].contiguous(), lse[:, :, :nk].contiguous(), causal=True,
            scale=s, deterministic=deterministic)
        rest = library.attention_backward(
            q[:, :, nk:].contiguous(), k, v, o[:, :, nk:].contiguous(),
            dout[:, :, nk:].contiguous(), lse[:, :, nk:].contiguous(), causal=False,
            scale=s, deterministic=deterministic)
        return torch.cat((top[0], rest[0]), dim=2), top[1] + rest[1], top[2] + rest[2]
    kp = k.new_zeros((b, hkv, nq, d))
    vp = v.new_zeros((b, hkv, nq, v.shape[3]))
    kp[:, :, :nk] = k
    vp[:, :, :nk] = v
    dq, dkp, dvp = library.attention_backward(q, kp, vp, o, dout, lse.contiguous(),
                                              causal=True, scale=s,
                                              deterministic=deterministic)
    return dq, dkp[:, :, :nk].contiguous(), dvp[:, :, :nk].contiguous()
