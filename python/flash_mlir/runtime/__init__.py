"""The runtime side of FlashMLIR (GPU machine: torch and the CUDA driver, no MLIR).

  flash_mlir.runtime.capi      ctypes bindings of libflash_runtime.so, the one launcher
  flash_mlir.runtime.library   KernelLibrary / Bundle: bundles on torch tensors

  from flash_mlir.runtime import KernelLibrary
  lib = KernelLibrary("bundles/")
  o = lib.attention(q, k, v, causal=True)
"""

from flash_mlir.runtime.library import Bundle, KernelLibrary, register_torch_op  # noqa: F401
