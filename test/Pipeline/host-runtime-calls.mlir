// flash-attention-to-runtime-calls: each flash.attention of a host function
// becomes a call of the runtime's flash_attention_memref_<dtype> on the
// buffers of Q, K, V (any layout, cast to the one descriptor type) and a new
// O, whose tensor replaces the result; the other ops stay.
// RUN: flash-opt %s --split-input-file --flash-attention-to-runtime-calls | FileCheck %s
// RUN: flash-opt %s --split-input-file --flash-attention-to-runtime-calls=c-interface=false | FileCheck %s --check-prefix=NOC

// The declaration: one per element type, MLIR's C interface (the runtime's
// symbol is _mlir_ciface_flash_attention_memref_bf16); public functions get
// the C interface too.
// CHECK-LABEL: func.func private @flash_attention_memref_bf16(
// CHECK-SAME: memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, i32, f32) -> i32
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @heads
// CHECK-SAME: attributes {llvm.emit_c_interface}
// NOC-LABEL: func.func @heads(
// NOC-SAME: -> tensor<2x128x64xbf16> {
// The slice stays a tensor op (bufferization makes it a view).
// CHECK: %[[SLICE:.+]] = tensor.extract_slice %arg0
// CHECK: %[[Q:.+]] = bufferization.to_buffer %[[SLICE]] read_only : tensor<1x2x128x64xbf16> to memref<1x2x128x64xbf16, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: %[[QC:.+]] = memref.cast %[[Q]]
// CHECK: %[[K:.+]] = bufferization.to_buffer %arg1 read_only
// CHECK: %[[KC:.+]] = memref.cast %[[K]]
// CHECK: %[[V:.+]] = bufferization.to_buffer %arg2 read_only
// CHECK: %[[VC:.+]] = memref.cast %[[V]]
// CHECK: %[[O:.+]] = memref.alloc() : memref<1x2x128x64xbf16>
// CHECK: %[[OC:.+]] = memref.cast %[[O]]
// The attributes: causal as an i32, the effective scale (here 1/sqrt(64)).
// CHECK-DAG: %[[CAUSAL:.+]] = arith.constant 1 : i32
// CHECK-DAG: %[[SCALE:.+]] = arith.constant 1.250000e-01 : f32
// CHECK: call @flash_attention_memref_bf16(%[[QC]], %[[KC]], %[[VC]], %[[OC]], %[[CAUSAL]], %[[SCALE]])
// CHECK: %[[T:.+]] = bufferization.to_tensor %[[O]] restrict writable : memref<1x2x128x64xbf16> to tensor<1x2x128x64xbf16>
// CHECK: tensor.collapse_shape %[[T]]
// CHECK-NOT: flash.attention
func.func @heads(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<2x128x64xbf16> {
  %q2 = tensor.extract_slice %q[0, 0, 0, 0] [1, 2, 128, 64] [1, 1, 1, 1] : tensor<1x4x128x64xbf16> to tensor<1x2x128x64xbf16>
  %o = flash.attention %q2, %k, %v {causal} : tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x2x128x64xbf16>
  %c = tensor.collapse_shape %o [[0, 1], [2], [3]] : tensor<1x2x128x64xbf16> into tensor<2x128x64xbf16>
  return %c : tensor<2x128x64xbf16>
}

// -----

// f16, GQA, Dv != D, an explicit scale, dynamic lengths and batch: O's
// dynamic sizes come from Q (B, Hq, Nq); two attentions share one
// declaration; a private function keeps its signature as it is.
// CHECK-LABEL: func.func private @flash_attention_memref_f16(
// CHECK-NOT: func.func private @flash_attention_memref
// CHECK-LABEL: func.func private @two(
// CHECK-NOT: llvm.emit_c_interface
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[B:.+]] = tensor.dim %arg0, %[[C0]]
// CHECK: %[[C2:.+]] = arith.constant 2 : index
// CHECK: %[[N:.+]] = tensor.dim %arg0, %[[C2]]
// CHECK: memref.alloc(%[[B]], %[[N]]) : memref<?x8x?x32xf16>
// CHECK: arith.constant 0 : i32
// CHECK: arith.constant 3.000000e-01 : f32
// CHECK: call @flash_attention_memref_f16(
// CHECK: arith.constant 1 : i32
// CHECK: arith.constant 1.250000e-01 : f32
// CHECK: call @flash_attention_memref_f16(
func.func private @two(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x32xf16>) -> (tensor<?x8x?x32xf16>, tensor<?x8x?x32xf16>) {
  %o = flash.attention %q, %k, %v {scale = 0.3 : f32} : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x32xf16> -> tensor<?x8x?x32xf16>
  %o2 = flash.attention %q, %k, %v {causal} : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x32xf16> -> tensor<?x8x?x32xf16>
  return %o, %o2 : tensor<?x8x?x32xf16>, tensor<?x8x?x32xf16>
}

// -----

// A declaration already there (a module lowered in pieces) is reused.
// CHECK-LABEL: func.func private @flash_attention_memref_bf16(
// CHECK-NOT: func.func private @flash_attention_memref_bf16(
// CHECK: call @flash_attention_memref_bf16(
func.func private @flash_attention_memref_bf16(memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, i32, f32) -> i32 attributes {llvm.emit_c_interface}
func.func @again(%q: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = flash.attention %q, %q, %q : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}
