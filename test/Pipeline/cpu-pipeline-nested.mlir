// --flash-cpu-pipeline lowers attention in func.func ops of nested
// builtin.modules like top-level ones (issue 21): every module ends in the LLVM
// dialect, with nothing on tensors left. Before the fix one-shot-bufferize
// skipped nested modules: several Q tiles crashed the verifier on a dangling
// value (segfault), a single Q tile "succeeded" with linalg, tensor.pad and
// unrealized_conversion_cast in the output.
// RUN: flash-opt %s --split-input-file --flash-cpu-pipeline | FileCheck %s
// RUN: flash-opt %s --split-input-file --flash-cpu-pipeline="block-q=16 block-kv=8" | FileCheck %s
// RUN: flash-opt %s --split-input-file --flash-cpu-pipeline=reference=true | FileCheck %s

// One Q tile (1x1x16x16), one level down: the silent half-lowering.
// CHECK-LABEL: module @inner {
// CHECK: llvm.func @single_tile(
// CHECK-NOT: {{flash\.|linalg\.|tensor\.|scf\.|memref\.|bufferization\.|func\.func|unrealized_conversion_cast}}
module @inner {
  func.func @single_tile(%q: tensor<1x1x16x16xf32>, %k: tensor<1x1x16x16xf32>, %v: tensor<1x1x16x16xf32>) -> tensor<1x1x16x16xf32> {
    %o = flash.attention %q, %k, %v : tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32> -> tensor<1x1x16x16xf32>
    return %o : tensor<1x1x16x16xf32>
  }
}

// -----

// Many Q tiles (N=1024, or 64 rows in tiles of 16), causal with LSE: the crash.
// CHECK-LABEL: module @inner {
// CHECK: llvm.func @many_tiles(
// CHECK-NOT: {{flash\.|linalg\.|tensor\.|scf\.|memref\.|bufferization\.|func\.func|unrealized_conversion_cast}}
module @inner {
  func.func @many_tiles(%q: tensor<1x2x1024x16xf32>, %k: tensor<1x1x1024x16xf32>, %v: tensor<1x1x1024x16xf32>) -> (tensor<1x2x1024x16xf32>, tensor<1x2x1024xf32>) {
    %o, %l = flash.attention %q, %k, %v {causal} : tensor<1x2x1024x16xf32>, tensor<1x1x1024x16xf32>, tensor<1x1x1024x16xf32> -> tensor<1x2x1024x16xf32>, tensor<1x2x1024xf32>
    return %o, %l : tensor<1x2x1024x16xf32>, tensor<1x2x1024xf32>
  }
}

// -----

// A top-level main next to two levels of nesting, and two attentions in one
// nested function: each module is lowered, main stays runnable.
// CHECK-LABEL: llvm.func @main()
// CHECK: llvm.call @printMemrefF32
// CHECK: module @outer {
// CHECK: module @deepest {
// CHECK: llvm.func @two_attentions(
// CHECK-NOT: {{flash\.|linalg\.|tensor\.|scf\.|memref\.|bufferization\.|func\.func|unrealized_conversion_cast}}
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func @main() {
  %q = arith.constant dense<0.5> : tensor<1x1x64x8xf32>
  %k = arith.constant dense<0.25> : tensor<1x1x64x8xf32>
  %v = arith.constant dense<1.0> : tensor<1x1x64x8xf32>
  %o = flash.attention %q, %k, %v : tensor<1x1x64x8xf32>, tensor<1x1x64x8xf32>, tensor<1x1x64x8xf32> -> tensor<1x1x64x8xf32>
  %ob = bufferization.to_buffer %o : tensor<1x1x64x8xf32> to memref<1x1x64x8xf32>
  %u = memref.cast %ob : memref<1x1x64x8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
module @outer {
  module @deepest {
    func.func @two_attentions(%q: tensor<1x1x64x8xf32>, %k: tensor<1x1x64x8xf32>, %v: tensor<1x1x64x8xf32>) -> tensor<1x1x64x8xf32> {
      %o1 = flash.attention %q, %k, %v : tensor<1x1x64x8xf32>, tensor<1x1x64x8xf32>, tensor<1x1x64x8xf32> -> tensor<1x1x64x8xf32>
      %o2 = flash.attention %o1, %k, %v {causal} : tensor<1x1x64x8xf32>, tensor<1x1x64x8xf32>, tensor<1x1x64x8xf32> -> tensor<1x1x64x8xf32>
      return %o2 : tensor<1x1x64x8xf32>
    }
  }
}

// -----

// No attention at all, nested: still lowered.
// CHECK-LABEL: module @empty {
// CHECK: llvm.func @identity(
// CHECK-NOT: {{flash\.|linalg\.|tensor\.|scf\.|memref\.|bufferization\.|func\.func|unrealized_conversion_cast}}
module @empty {
  func.func @identity(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
