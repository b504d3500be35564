"""Hugging Face transformers: FlashMLIR as an attention implementation.

    import flash_mlir.torch.hf as fhf
    fhf.register_hf()                       # once, before building models
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation=fhf.NAME)

NAME is "mlir_attention", not "flash_mlir": transformers treats every
implementation whose name contains "flash" as a FlashAttention build (it
tries to import the flash_attn kernels when a model is built, and prepares
masks and inputs for them): transformers 5.17 refused to build GPT-2 with
attn_implementation="flash_mlir" ("Could not find the currently requested
flash attention implementation"), seen on the H200 (docs/pytorch.md).

``register_hf`` registers ``attention_forward`` with transformers'
AttentionInterface under NAME, and (where transformers has
masking_utils.AttentionMaskInterface) SDPA's mask builder under the same
name, so that a call without padding reaches the attention with no mask and
is_causal (what the kernels compute). The attention function follows
transformers' sdpa_attention_forward: q, k, v B×H×N×D (the models' views of
B×N×H×D projections: taken without a copy on sm_90a), is_causal only when
Nq > 1 and there is no mask, GQA without repeating K/V, and the output
returned B×N×H×D (O is written in q's layout, so the transpose back is free).

What the kernels do not run (a padding mask, attention dropout in training,
f32, a head dimension without kernels, ...) raises
flash_mlir.torch.Unsupported naming it, or with ``register_hf(fallback=True)``
runs torch's SDPA for that call with a warning (never silently).
Needs no torch to import; transformers only in register_hf.
"""

NAME = "mlir_attention"

_OPTIONS = {"fallback": False, "library": None}


def attention_forward(module, query, key, value, attention_mask, dropout=0.0, scaling=None,
                      is_causal=None, **kwargs):
    """transformers' attention function signature; returns (B×N×H×D output,
    None) (no attention weights)."""
    from flash_mlir.torch.sdpa import scaled_dot_product_attention
    is_causal = is_causal if is_causal is not None else getattr(module, "is_causal", True)
    is_causal = bool(query.shape[2] > 1 and attention_mask is None and is_causal)
    out = scaled_dot_product_attention(
        query, key, value, attn_mask=attention_mask, dropout_p=dropout, is_causal=is_causal,
        scale=scaling, enable_gqa=query.shape[1] != key.shape[1],
        fallback=_OPTIONS["fallback"], library=_OPTIONS["library"])
    return out.transpose(1, 2).contiguous(), None


def register_hf(fallback: bool = False, library=None, name: str = NAME):
    """Registers the attention implementation `name` with transformers
    (AttentionInterface, and the SDPA mask builder under the same name where
    transformers has AttentionMaskInterface). `library`: a KernelLibrary
    (default: flash_mlir.torch.default_library()). Returns the name."""
    import transformers
    _OPTIONS["fallback"] = fallback
    _OPTIONS["library"] = library
    transformers.AttentionInterface.register(name, attention_forward)
    try:
        from transformers.masking_utils import AttentionMaskInterface, sdpa_mask
    except ImportError:  # older transformers: masks are built per model
        return name
    AttentionMaskInterface.register(name, sdpa_mask)
    return name
