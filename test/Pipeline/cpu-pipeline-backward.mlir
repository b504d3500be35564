// RUN: flash-opt %s --flash-cpu-pipeline | FileCheck %s
// RUN: flash-opt %s --flash-cpu-pipeline=reference=true | FileCheck %s
// RUN: flash-opt %s --flash-cpu-pipeline="block-q=3 block-kv=5" | FileCheck %s

// --flash-cpu-pipeline lowers flash.attention_backward to the LLVM dialect
// that mlir-runner executes (tiled: the three loop nests; reference: whole
// tensors): dQ, dK and dV printed, nothing above LLVM left.
// CHECK-NOT: flash.
// CHECK-LABEL: llvm.func @main()
// CHECK-COUNT-3: llvm.call @printMemrefF32
// CHECK-NOT: {{flash\.|linalg\.|tensor\.|scf\.|memref\.}}
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func @main() {
  %q = arith.constant dense<0.5> : tensor<1x2x7x8xf32>
  %k = arith.constant dense<0.25> : tensor<1x1x9x8xf32>
  %v = arith.constant dense<1.0> : tensor<1x1x9x4xf32>
  %o = arith.constant dense<1.0> : tensor<1x2x7x4xf32>
  %do = arith.constant dense<0.5> : tensor<1x2x7x4xf32>
  %lse = arith.constant dense<2.0> : tensor<1x2x7xf32>
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {causal}
      : tensor<1x2x7x8xf32>, tensor<1x1x9x8xf32>, tensor<1x1x9x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x7xf32>
      -> tensor<1x2x7x8xf32>, tensor<1x1x9x8xf32>, tensor<1x1x9x4xf32>
  %dqb = bufferization.to_buffer %dq : tensor<1x2x7x8xf32> to memref<1x2x7x8xf32>
  %dqu = memref.cast %dqb : memref<1x2x7x8xf32> to memref<*xf32>
  call @printMemrefF32(%dqu) : (memref<*xf32>) -> ()
  %dkb = bufferization.to_buffer %dk : tensor<1x1x9x8xf32> to memref<1x1x9x8xf32>
  %dku = memref.cast %dkb : memref<1x1x9x8xf32> to memref<*xf32>
  call @printMemrefF32(%dku) : (memref<*xf32>) -> ()
  %dvb = bufferization.to_buffer %dv : tensor<1x1x9x4xf32> to memref<1x1x9x4xf32>
  %dvu = memref.cast %dvb : memref<1x1x9x4xf32> to memref<*xf32>
  call @printMemrefF32(%dvu) : (memref<*xf32>) -> ()
  return
}
