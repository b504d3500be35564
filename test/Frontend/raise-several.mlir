// Several frontend functions in one input (three modules, as a compiler
// links them): flash-raise-attention raises each attention on its own and
// leaves the near miss between them alone, whatever the dialect mix.
// RUN: cat %S/Inputs/sdpa_gqa_causal_f32.linalg.mlir %S/Inputs/miss_tanh_f32.tosa.mlir \
// RUN:     %S/Inputs/eager_plain_bf16.tosa.mlir | flash-opt --flash-raise-attention | FileCheck %s

// CHECK-LABEL: func.func @forward(%arg0: tensor<2x4x8x16xf32>
// CHECK:         flash.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f32}
// CHECK-SAME:      tensor<2x4x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x8xf32> -> tensor<2x4x8x8xf32>
// CHECK-NOT:     linalg.batch_matmul
// CHECK-LABEL: func.func @forward(%arg0: tensor<1x2x8x8xf32>
// CHECK-NOT:     flash.attention
// CHECK:         tosa.tanh
// CHECK-NOT:     flash.attention
// CHECK-LABEL: func.func @forward(%arg0: tensor<1x2x8x16xbf16>
// CHECK:         flash.attention %arg0, %arg1, %arg2 {scale = 2.500000e-01 : f32}
// CHECK-SAME:      -> tensor<1x2x8x16xbf16>
// CHECK-NOT:     tosa.matmul
