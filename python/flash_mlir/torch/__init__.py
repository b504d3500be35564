"""torch integration: ``torch.ops.flash_mlir.attention`` over a KernelLibrary.

(Inside this package ``import torch`` is PyTorch: imports are absolute.)
"""

_TORCH_OP_LIBRARY = None


def register_torch_op(library):
    """Registers ``torch.ops.flash_mlir.attention(q, k, v, causal, scale) -> o``.

    A torch custom op over `library`'s kernels (a flash_mlir.runtime.KernelLibrary),
    with a fake (meta) implementation so that torch.compile can trace through it.
    `scale` <= 0 means 1/sqrt(D). Registering again replaces the library the op
    dispatches to.
    """
    import torch
    global _TORCH_OP_LIBRARY
    _TORCH_OP_LIBRARY = library
    if hasattr(torch.ops, "flash_mlir") and hasattr(torch.ops.flash_mlir, "attention"):
        return torch.ops.flash_mlir.attention

    @torch.library.custom_op("flash_mlir::attention", mutates_args=())
    def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False,
                  scale: float = 0.0) -> torch.Tensor:
        return _TORCH_OP_LIBRARY.attention(q, k, v, causal=causal,
                                           scale=scale if scale > 0 else None)

    @attention.register_fake
    def _(q, k, v, causal=False, scale=0.0):
        return torch.empty_like(q)

    return torch.ops.flash_mlir.attention
