// --flash-host-to-llvm: a host function with attentions among other ops to
// the LLVM dialect and (mlir-translate, llc) an object file. The returned
// buffer becomes the caller's out-parameter (no copy in host code), the
// intermediate O is allocated and freed through the generic allocation
// functions (device memory, docs/embedding.md), the slice is a view (its
// offset and strides go into the descriptor), and each attention calls the
// runtime through MLIR's C interface.
// RUN: flash-opt %s --flash-host-to-llvm | FileCheck %s
// RUN: flash-opt %s --flash-host-to-llvm | mlir-translate --mlir-to-llvmir | llc -O2 -filetype=obj -relocation-model=pic -o %t.o
// RUN: llvm-nm %t.o | FileCheck %s --check-prefix=NM

// CHECK-DAG: llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
// CHECK-DAG: llvm.func @_mlir_ciface_flash_attention_memref_bf16(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, f32) -> i32
// CHECK-LABEL: llvm.func @block(
// CHECK: llvm.call @_mlir_memref_to_llvm_alloc
// CHECK: llvm.call @flash_attention_memref_bf16(
// CHECK: llvm.call @flash_attention_memref_bf16(
// CHECK: llvm.call @_mlir_memref_to_llvm_free
// CHECK-NOT: llvm.intr.memcpy
// CHECK: llvm.return
// The C interface: descriptors by pointer, the result the last argument.
// CHECK-LABEL: llvm.func @_mlir_ciface_block(%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr)

// NM-DAG: T _mlir_ciface_block
// NM-DAG: U _mlir_ciface_flash_attention_memref_bf16
// NM-DAG: U _mlir_memref_to_llvm_alloc
// NM-DAG: U _mlir_memref_to_llvm_free
func.func @block(%q: tensor<1x2x256x64xbf16>, %k: tensor<1x2x256x64xbf16>, %v: tensor<1x2x256x64xbf16>) -> tensor<1x1x256x64xbf16> {
  %o = flash.attention %q, %k, %v {causal, scale = 0.25 : f32} : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  %q2 = tensor.extract_slice %o[0, 1, 0, 0] [1, 1, 256, 64] [1, 1, 1, 1] : tensor<1x2x256x64xbf16> to tensor<1x1x256x64xbf16>
  %k2 = tensor.extract_slice %k[0, 0, 0, 0] [1, 1, 128, 64] [1, 1, 1, 1] : tensor<1x2x256x64xbf16> to tensor<1x1x128x64xbf16>
  %o2 = flash.attention %q2, %k2, %k2 {scale = 0.125 : f32} : tensor<1x1x256x64xbf16>, tensor<1x1x128x64xbf16>, tensor<1x1x128x64xbf16> -> tensor<1x1x256x64xbf16>
  return %o2 : tensor<1x1x256x64xbf16>
}
