// RUN: flash-opt %s --split-input-file --flash-to-ptx=arch=sm_80 -verify-diagnostics
// RUN: flash-opt %s --split-input-file --flash-to-ptx=arch=sm_90a -verify-diagnostics

// --flash-to-ptx succeeds only when every kernel is in a gpu.binary: an NVVM
// or NVGPU op left outside one (here in a host llvm.func of the input, where
// no lowering puts a kernel) is a located error, not output that passes it
// through as host code (the fuzzer's "half-lowered" finding on the
// hand-written kernels of tensor-memory-check.mlir).

llvm.func @device_op_in_host_code(%slot: !llvm.ptr<3>) {
  %n = llvm.mlir.constant(32 : i32) : i32
  // expected-error @+1 {{'nvvm.tcgen05.alloc' op was not lowered by --flash-to-ptx}}
  nvvm.tcgen05.alloc %slot, %n : !llvm.ptr<3>, i32
  llvm.return
}

// -----

func.func @nvgpu_op_in_host_code(%barriers: !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // The pipeline's NVGPU-to-NVVM conversion reaches it too; the NVVM op it
  // becomes is what is left.
  // expected-error @+1 {{'nvvm.mbarrier.init' op was not lowered by --flash-to-ptx}}
  nvgpu.mbarrier.init %barriers[%c0], %c1 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
  return
}
