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
// RUN: mkdir -p %t/empty && not %t/driver --dry %t/empty | FileCheck %s --check-prefix=EMPTY

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

// CHECK: runtime: flash_runtime 3 (launch plan 1), ABI 3, 2 plans in
// CHECK: forward: flash_host_status 2: flash_attention_memref: {{cannot load the CUDA driver|cuInit}}
// CHECK: block: flash_host_status 2: flash_attention_memref: {{cannot load the CUDA driver|cuInit}}

// A library without the key's plan: the call says what it needed and what
// was compiled.
// EMPTY: runtime: flash_runtime 3 (launch plan 1), ABI 3, 0 plans in
// EMPTY: forward: flash_host_status 1: flash_attention_memref: no launch plan for bf16, D=64, causal=true, lse=false in {{.*}}empty; compiled:
