"""``scaled_dot_product_attention``: torch.nn.functional.scaled_dot_product_attention's
signature over FlashMLIR's kernels.

    from flash_mlir.torch import scaled_dot_product_attention as sdpa
    o = sdpa(q, k, v, is_causal=True)                    # q: B×Hq×Nq×D, k, v: B×Hkv×Nk×D
    o = sdpa(q, k, v, is_causal=True, causal_alignment="bottom_right")
    o = sdpa(q, k, v, attn_mask=m, fallback=True)        # torch's SDPA runs this call

Semantics are SDPA's where the kernels support them:

- ``is_causal``: SDPA aligns the diagonal top-left (query row i sees keys
  j <= i) also when Nq != Nk; FlashMLIR's kernels align it bottom-right (row i
  sees j <= i + Nk - Nq, the convention of decoding and chunked prefill).
  ``causal_alignment="top_left"`` (the default, SDPA's) is mapped onto the
  kernels: Nq < Nk runs on the first Nq keys (the others are masked for every
  row), Nq > Nk runs rows [0, Nk) causal and rows [Nk, Nq) over every key (two
  launches, concatenated; their backward is one kernel call over K, V
  padded with zeros, see padded_backward_keys). ``"bottom_right"`` is the kernels' own; rows that
  see no key (Nq > Nk) are 0 there, where SDPA with an explicit mask gives NaN.
  With Nq == Nk both are the same.
- ``scale``: None is 1/sqrt(D), as in SDPA.
- ``enable_gqa``: Hq != Hkv needs it, as in SDPA (the kernels read each K/V
  head for its group of query heads; nothing is repeated in memory).
- Differentiable (the backward kernels), eager, under torch.compile and in
  CUDA graphs: eager calls through flash_mlir.torch.eager_attention_function()
  (an autograd.Function, the fewest host steps), traced ones through
  torch.ops.flash_mlir.attention.
- Strided q, k, v (B×N×H×D views) are taken without a copy on sm_90a
  (KernelLibrary.attention); the output has q's layout there.

Not supported, each an ``Unsupported`` error naming the argument (a
NotImplementedError): a tensor ``attn_mask``, ``dropout_p`` > 0, dtypes other
than bf16/f16, CPU tensors, head dimensions the library has no kernel for,
Dv != D, inputs of rank other than 3 or 4, gradients where the library has no
backward plan. ``fallback=True`` runs torch's SDPA for such a call instead,
with a warning naming the reason (never silently; ``fallback_counts()`` counts
them per reason).

The argument checking and the causal mapping here need no torch (CPU tests).
"""

import math
import warnings
from typing import List, NamedTuple, Optional, Sequence

ALIGNMENTS = ("top_left", "bottom_right")
SUPPORTED_DTYPES = ("bf16", "f16")


class Unsupported(NotImplementedError):
    """A call FlashMLIR's kernels do not run; ``argument`` names why."""

    def __init__(self, argument: str, message: str):
        super().__init__(
            f"flash_mlir.torch.scaled_dot_product_attention: not supported yet: {message}. "
            "Pass fallback=True to run torch.nn.functional.scaled_dot_product_attention for "
            "such calls")
        self.argument = argument
        self.reason = message


class Segment(NamedTuple):
    """One kernel call of a causal mapping: query rows [row_begin, row_end)
    over keys [0, keys), causal bottom-right or not."""
    row_begin: int
    row_end: int
    keys: int
    causal: bool


def causal_segments(nq: int, nk: int, is_causal: bool, alignment: str) -> List[Segment]:
    """The kernel calls (bottom-right causal or not) that compute SDPA's
    is_causal with `alignment`: every query row exactly once, in order."""
    if alignment not in ALIGNMENTS:
        raise ValueError(f"causal_alignment must be one of {', '.join(ALIGNMENTS)}, "
                         f"got {alignment!r}")
    if not is_causal or alignment == "bottom_right" or nq == nk:
        return [Segment(0, nq, nk, is_causal)]
    if nq < nk:  # top-left: keys past Nq - 1 are masked for every row
        return [Segment(0, nq, nq, True)]
    # nq > nk: rows [0, Nk) are a causal square; rows [Nk, Nq) see every key.
    segments = [Segment(0, nk, nk, True)] if nk > 0 else []
    return segments + [Segment(nk, nq, nk, False)]


def padded_backward_keys(nq: int, nk: int, is_causal: bool, alignment: str) -> int:
    """Keys to append (zeros) so the backward of a top-left causal call with
    Nq > Nk > 0 runs as ONE bottom-right causal kernel call (0: the call's
    segments' backwards are used as they are).

    Top-left row i sees keys j <= i. Over Nq keys (K, V padded with Nq - Nk
    zero rows at the end) the kernels' bottom-right mask of a square is the
    same j <= i. With the forward's true O and LSE, P, dP and dS of the real
    keys are the top-left ones, so dK and dV of the real keys are exact and
    summed over every row in f32 before one rounding (two kernel calls would
    round each call's dK, dV and their sum: 1.4% over FlashAttention's
    criterion on the H200). A zero key adds dS·0 = 0 to dQ (while its
    P = exp(-LSE) is finite: the op takes two calls for rows whose LSE is
    below -40); the padded keys' own dK, dV are dropped."""
    if is_causal and alignment == "top_left" and nq > nk > 0:
        return nq - nk
    return 0


def visible(nq: int, nk: int, is_causal: bool, alignment: str):
    """Row i's visible keys as SDPA defines them (a list of ranges' ends):
    top-left j <= i, bottom-right j <= i + nk - nq; not causal: all."""
    ends = []
    for i in range(nq):
        if not is_causal:
            ends.append(nk)
        elif alignment == "top_left":
            ends.append(min(nk, i + 1))
        else:
            ends.append(max(0, min(nk, i + nk - nq + 1)))
    return ends


def check_call(q_shape: Sequence[int], k_shape: Sequence[int], v_shape: Sequence[int],
               dtypes: Sequence[str], device_type: str, attn_mask_given: bool,
               dropout_p: float, scale: Optional[float], enable_gqa: bool,
               causal_alignment: str, head_dims: Optional[Sequence[int]] = None) -> None:
    """Raises Unsupported (what the kernels do not run) or ValueError (what
    SDPA refuses too) for a call described without torch: shapes, dtype
    names ("bf16", "f16", "f32", ...), the device type, and `head_dims`, the
    head dimensions the library has forward kernels for in this dtype (None:
    not checked)."""
    if causal_alignment not in ALIGNMENTS:
        raise ValueError(f"causal_alignment must be one of {', '.join(ALIGNMENTS)}, "
                         f"got {causal_alignment!r}")
    if attn_mask_given:
        raise Unsupported("attn_mask", "attn_mask (a tensor mask; the kernels mask only "
                          "causally: use is_causal)")
    if dropout_p != 0.0:
        raise Unsupported("dropout_p", f"dropout_p={dropout_p} (attention dropout)")
    ranks = {len(q_shape), len(k_shape), len(v_shape)}
    if ranks - {3, 4} or len(ranks) != 1:
        raise Unsupported("query", f"inputs of rank {sorted(ranks)} (the kernels take "
                          "B×H×N×D, or H×N×D)")
    if len(set(dtypes)) != 1:
        raise ValueError(f"query, key and value must share a dtype, got {', '.join(dtypes)}")
    if dtypes[0] not in SUPPORTED_DTYPES:
        raise Unsupported("query", f"dtype {dtypes[0]} (the kernels take bf16 and f16)")
    if device_type != "cuda":
        raise Unsupported("query", f"device {device_type} (the kernels run on CUDA devices)")
    q4 = (1,) * (4 - len(q_shape)) + tuple(q_shape)
    k4 = (1,) * (4 - len(k_shape)) + tuple(k_shape)
    v4 = (1,) * (4 - len(v_shape)) + tuple(v_shape)
    if q4[0] != k4[0] or k4[0] != v4[0] or k4[:3] != v4[:3]:
        raise ValueError(f"shapes do not agree: query {tuple(q_shape)}, key {tuple(k_shape)}, "
                         f"value {tuple(v_shape)}")
    if q4[3] != k4[3]:
        raise ValueError(f"query and key head dimensions differ: {q4[3]} and {k4[3]}")
    if v4[3] != q4[3]:
        raise Unsupported("value", f"a value head dimension {v4[3]} other than the query's "
                          f"{q4[3]} (the kernels need Dv = D)")
    hq, hkv = q4[1], k4[1]
    if hq != hkv:
        if not enable_gqa:
            raise ValueError(f"query has {hq} heads and key/value {hkv}: pass enable_gqa=True "
                             "(as torch's SDPA needs)")
        if hkv == 0 or hq % hkv:
            raise ValueError(f"query heads ({hq}) must be a multiple of key/value heads ({hkv})")
    if scale is not None and not (scale > 0 and math.isfinite(scale)):
        raise Unsupported("scale", f"scale={scale} (the kernels take a finite positive scale)")
    if head_dims is not None and q4[3] not in head_dims:
        raise Unsupported("query", f"head dimension {q4[3]} (the library has {dtypes[0]} "
                          f"kernels for D in {sorted(head_dims) or 'none'})")


_FALLBACKS = {}


def fallback_counts() -> dict:
    """How many calls fell back to torch's SDPA, by reason (fallback=True)."""
    return dict(_FALLBACKS)


_DTYPE_NAMES = {"torch.bfloat16": "bf16", "torch.float16": "f16", "torch.float32": "f32",
                "torch.float64": "f64"}


def _head_dims(library, dtype: str, grad: bool, capability: int):
    """Head dimensions with a forward plan (and a backward plan when the
    call needs gradients) for `dtype` that runs on the device."""
    memo = getattr(library, "_sdpa_head_dims", None)
    if memo is None:
        memo = library._sdpa_head_dims = {}
    key = (dtype, grad, capability)
    if key not in memo:
        def runs(b):  # sm_90a plans on 9.0 only; sm_80 plans on 8.0 and later
            number = int("".join(c for c in b.arch if c.isdigit()) or 0)
            return capability == 0 or (number == capability if b.arch.endswith("a")
                                       else number <= capability)
        forward = {b.head_dim for b in library.all
                   if b.op == "attention_forward" and b.dtype == dtype and runs(b)}
        if grad:
            forward &= {b.head_dim for b in library.all
                        if b.op == "attention_backward" and b.dtype == dtype and runs(b)}
        memo[key] = forward
    return memo[key]


_CHECKED = {}  # calls checked before (shapes, dtypes, devices, options) -> library


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False, *,
                                 causal_alignment: str = "top_left", fallback: bool = False,
                                 library=None):
    """torch.nn.functional.scaled_dot_product_attention on FlashMLIR's
    kernels (see the module's docstring). `library`: a KernelLibrary (default:
    flash_mlir.torch.default_library(), the registered one or the package's
    bundles)."""
    import torch
    from flash_mlir import torch as ftorch
    if torch.compiler.is_compiling():
        # Traced (torch.compile): the checks ran in eager calls; the ops'
        # fakes and kernels check the rest. The library is the registered one.
        if library is not None:
            raise RuntimeError("flash_mlir.torch.scaled_dot_product_attention: under "
                               "torch.compile the registered library is used: pass no "
                               "library (register_torch_op(lib) before compiling)")
        return _run(None, True, query, key, value, is_causal, scale, causal_alignment)
    grad = torch.is_grad_enabled() and (query.requires_grad or key.requires_grad or
                                        value.requires_grad)
    memo = None
    if attn_mask is None and not dropout_p:
        # A call like one checked before runs at once (host time per call).
        memo = (query.shape, key.shape, value.shape, query.dtype, key.dtype, value.dtype,
                query.device, key.device, value.device, is_causal, scale, enable_gqa,
                causal_alignment, grad, library or ftorch._TORCH_OP_LIBRARY)
        lib = _CHECKED.get(memo)
        if lib is not None:
            return _run(lib, grad, query, key, value, is_causal, scale, causal_alignment)
    try:
        dtypes = [_DTYPE_NAMES.get(str(t.dtype), str(t.dtype)) for t in (query, key, value)]
        shapes = (tuple(query.shape), tuple(key.shape), tuple(value.shape))
        check_call(*shapes, dtypes, query.device.type, attn_mask is not None, dropout_p, scale,
                   enable_gqa, causal_alignment)
        if len({t.device for t in (query, key, value)}) != 1:
            raise ValueError("query, key and value must be on one device")
        lib = library or ftorch.default_library()
        index = query.device.index if query.device.index is not None else \
            torch.cuda.current_device()
        major, minor = torch.cuda.get_device_capability(index)
        check_call(*shapes, dtypes, query.device.type, False, dropout_p, scale, enable_gqa,
                   causal_alignment, _head_dims(lib, dtypes[0], grad, major * 10 + minor))
    except (Unsupported, FileNotFoundError) as e:
        if not fallback:
            raise
        reason = getattr(e, "reason", str(e))
        _FALLBACKS[reason] = _FALLBACKS.get(reason, 0) + 1
        warnings.warn(f"flash_mlir.torch.scaled_dot_product_attention: torch's SDPA runs this "
                      f"call (fallback=True): {reason}", stacklevel=2)
        kwargs = {"enable_gqa": enable_gqa} if enable_gqa else {}
        return torch.nn.functional.scaled_dot_product_attention(
            query, key, value, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal,
            scale=scale, **kwargs)
    if memo is not None:
        if len(_CHECKED) >= 1024:
            _CHECKED.clear()
        _CHECKED[memo] = lib
    return _run(lib, grad, query, key, value, is_causal, scale, causal_alignment)


def _run(lib, grad, query, key, value, is_causal, scale, causal_alignment):
    """The checked call: the kernel calls of causal_segments, through the
    differentiable op when autograd needs it (or under tracing), else
    straight to the library (the fewest steps: host time)."""
    if lib is not None and query.dim() == 4 and (
            not is_causal or causal_alignment == "bottom_right" or
            query.shape[2] == key.shape[2]):
        # One kernel call on the tensors as they are (causal_segments gives
        # one segment of every row and key): the fewest host steps.
        if not grad:
            # O in q's layout where the plan maps it (sm_90a); a call like
            # one made before is a prepared call, strided or not.
            return lib.attention(query, key, value, bool(is_causal), scale)
        from flash_mlir import torch as ftorch
        ftorch.use_library(lib)
        return ftorch.eager_attention_function().apply(
            query, key, value, bool(is_causal), float(scale) if scale is not None else 0.0, lib)
    import torch
    from flash_mlir import torch as ftorch
    squeeze = query.dim() == 3
    if squeeze:
        query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
    if grad and lib is None:  # traced: the custom op (its fakes, its autograd)
        op = torch.ops.flash_mlir.attention
    elif grad:
        # Eager: the same kernels and backward through an autograd.Function,
        # without the custom op's wrappers (host time of a training step).
        ftorch.use_library(lib)
        apply = ftorch.eager_attention_function().apply

        def op(q, k, v, causal, s):
            return apply(q, k, v, causal, s, lib)
    else:
        def op(q, k, v, causal, s):
            # O is allocated in q's layout where the plan maps it (sm_90a);
            # a call like one made before is a prepared call, strided or not.
            return lib.attention(q, k, v, causal, s if s > 0 else None)
    s = float(scale) if scale is not None else 0.0
    nq, nk = query.shape[2], key.shape[2]
    if grad and padded_backward_keys(nq, nk, bool(is_causal), causal_alignment):
        # Top-left, Nq > Nk: the forward's two calls, the backward's one.
        out = torch.ops.flash_mlir.attention_top_left_with_lse(query, key, value, s)[0]
        return out.squeeze(0) if squeeze else out
    parts = []
    for row_begin, row_end, keys, causal in causal_segments(nq, nk, bool(is_causal),
                                                            causal_alignment):
        q = query if (row_begin, row_end) == (0, nq) else query[:, :, row_begin:row_end]
        k = key if keys == nk else key[:, :, :keys]
        v = value if keys == nk else value[:, :, :keys]
        parts.append(op(q, k, v, causal, s))
    out = parts[0] if len(parts) == 1 else torch.cat(parts, dim=2)
    return out.squeeze(0) if squeeze else out
