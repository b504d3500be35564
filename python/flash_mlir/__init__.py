"""FlashMLIR's Python package, by role.

  flash_mlir.compiler   compile kernel bundles with flash-opt (build machine)
  flash_mlir.runtime    libflash_runtime.so through ctypes: KernelLibrary (GPU machine)
  flash_mlir.torch      torch.ops.flash_mlir.attention over a KernelLibrary
  flash_mlir.tools      gpu_check, bench, run_once, check_bundles
  flash_mlir.testing    CPU integration cases (cpu_case); flash_mlir.oracle, the float64 reference

`python3 -m flash_mlir.compile`, `.gpu_check`, `.bench` and `.run_once` run the
modules of compiler/ and tools/.
"""
