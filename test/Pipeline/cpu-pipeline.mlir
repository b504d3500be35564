// RUN: flash-opt %s --flash-cpu-pipeline | FileCheck %s
// RUN: flash-opt %s --flash-cpu-pipeline=reference=true | FileCheck %s
// RUN: flash-opt %s --flash-cpu-pipeline="block-q=3 block-kv=5" | FileCheck %s

// --flash-cpu-pipeline ends in the LLVM dialect that mlir-runner executes:
// no flash, linalg, tensor, scf or memref ops are left.
// CHECK-NOT: flash.
// CHECK-LABEL: llvm.func @main()
// CHECK: llvm.call @printMemrefF32
// CHECK-NOT: {{flash\.|linalg\.|tensor\.|scf\.|memref\.}}
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func @main() {
  %q = arith.constant dense<0.5> : tensor<1x2x7x8xf32>
  %k = arith.constant dense<0.25> : tensor<1x1x9x8xf32>
  %v = arith.constant dense<1.0> : tensor<1x1x9x4xf32>
  %o = flash.attention %q, %k, %v {causal} : tensor<1x2x7x8xf32>, tensor<1x1x9x8xf32>, tensor<1x1x9x4xf32> -> tensor<1x2x7x4xf32>
  %ob = bufferization.to_buffer %o : tensor<1x2x7x4xf32> to memref<1x2x7x4xf32>
  %u = memref.cast %ob : memref<1x2x7x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
