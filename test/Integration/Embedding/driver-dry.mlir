// REQUIRES: ptxas, flash-runtime
// The embedding example (examples/embedding, docs/embedding.md) built end to
// end on a machine without a GPU: the committed torch-mlir input scaled and
// raised, its kernels compiled into bundles, its host code lowered to an
// object file and linked with driver.c and libflash_runtime.so. The driver's
// dry mode (host memory standing in for device memory) runs the compiled
// host code: each runtime call finds its plan and plans the launch with the
// descriptors the object passed, then fails only where it needs the driver.
// RUN: rm -rf %t && env FLASH_OPT=flash-opt FLASH_RUNTIME_DIR=%flash_lib bash %flash_src/examples/embedding/build.sh %t --seq 256 > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=RAISED < %t/raised.mlir
// RUN: llvm-nm %t/block.o | FileCheck %s --check-prefix=NM
// RUN: not %t/driver --dry %t/bundles | FileCheck %s
// RUN: mkdir -p %t/one && cp %t/bundles/flash_fwd_bf16_d64.* %t/one/ && not %t/driver --dry %t/one | FileCheck %s --check-prefix=ONE

// The frontend's attention was raised (its softmax and mask are gone).
// RAISED-LABEL: func.func @forward(
// RAISED: flash.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f32}
// RAISED-NOT: linalg.generic
// RAISED-LABEL: func.func @block(
// RAISED: call @forward
// RAISED: tensor.extract_slice
// RAISED: flash.attention

// NM-DAG: T _mlir_ciface_forward
// NM-DAG: T _mlir_ciface_block
// NM-DAG: U _mlir_ciface_flash_attention_memref_bf16
// NM-DAG: U _mlir_memref_to_llvm_alloc

// CHECK: runtime: flash_runtime 5 (launch plan 1), ABI 5, 2 plans in
// The causal plan was chosen for @forward's call; planning its launch needs
// the device (its persistent grid depends on the SM count).
// CHECK: forward: flash_host_status {{[12]}}: flash_attention_memref: the grid of flash_fwd_bf16_d64_causal depends on the device's SM count: {{cannot load the CUDA driver|cuInit}}
// CHECK: block: flash_host_status {{[12]}}: flash_attention_memref: the grid of flash_fwd_bf16_d64_causal depends on the device's SM count: {{cannot load the CUDA driver|cuInit}}

// A library without the causal key's plan: the call says what it needed and
// what was compiled.
// ONE: runtime: flash_runtime 5 (launch plan 1), ABI 5, 1 plans in
// ONE: forward: flash_host_status 1: flash_attention_memref: no launch plan for bf16, D=64, causal=true, lse=false in {{.*}}one; compiled: bf16/D=64/causal=false/lse=false/sm_90a
