// Real frontend IR raised by flash-raise-attention: F.scaled_dot_product_attention exported by torch-mlir (linalg-on-tensors and TOSA):
// plain, is_causal (Nq == Nk), explicit scale, enable_gqa (Hq=4, Hkv=2), f32 and bf16.
// bf16: torch-mlir computes SDPA in f32 between casts, so the raised op is f32.
// The inputs come from scripts/frontend/gen-frontend-ir.py (test/Frontend/Inputs).
// Each check pins the flash.attention (operands, causal, scale, types: GQA kept as
// Hkv < Hq), the collapse back into the frontend's B·H×N×D rows, and that neither
// batch matmul nor the softmax's exp is left anywhere in the function.

// RUN: flash-opt %S/Inputs/sdpa_causal_bf16.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-CAUSAL-BF16-LINALG
// RUN: flash-opt %S/Inputs/sdpa_causal_bf16.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-CAUSAL-BF16-TOSA
// RUN: flash-opt %S/Inputs/sdpa_causal_f32.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-CAUSAL-F32-LINALG
// RUN: flash-opt %S/Inputs/sdpa_causal_f32.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-CAUSAL-F32-TOSA
// RUN: flash-opt %S/Inputs/sdpa_gqa_bf16.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-GQA-BF16-LINALG
// RUN: flash-opt %S/Inputs/sdpa_gqa_bf16.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-GQA-BF16-TOSA
// RUN: flash-opt %S/Inputs/sdpa_gqa_causal_bf16.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-GQA-CAUSAL-BF16-LINALG
// RUN: flash-opt %S/Inputs/sdpa_gqa_causal_bf16.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-GQA-CAUSAL-BF16-TOSA
// RUN: flash-opt %S/Inputs/sdpa_gqa_causal_f32.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-GQA-CAUSAL-F32-LINALG
// RUN: flash-opt %S/Inputs/sdpa_gqa_causal_f32.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-GQA-CAUSAL-F32-TOSA
// RUN: flash-opt %S/Inputs/sdpa_gqa_f32.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-GQA-F32-LINALG
// RUN: flash-opt %S/Inputs/sdpa_gqa_f32.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-GQA-F32-TOSA
// RUN: flash-opt %S/Inputs/sdpa_plain_bf16.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-PLAIN-BF16-LINALG
// RUN: flash-opt %S/Inputs/sdpa_plain_bf16.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-PLAIN-BF16-TOSA
// RUN: flash-opt %S/Inputs/sdpa_plain_f32.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-PLAIN-F32-LINALG
// RUN: flash-opt %S/Inputs/sdpa_plain_f32.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-PLAIN-F32-TOSA
// RUN: flash-opt %S/Inputs/sdpa_scale_bf16.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-SCALE-BF16-LINALG
// RUN: flash-opt %S/Inputs/sdpa_scale_bf16.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-SCALE-BF16-TOSA
// RUN: flash-opt %S/Inputs/sdpa_scale_f32.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-SCALE-F32-LINALG
// RUN: flash-opt %S/Inputs/sdpa_scale_f32.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=SDPA-SCALE-F32-TOSA

// SDPA-CAUSAL-BF16-LINALG-LABEL: func.func @forward
// SDPA-CAUSAL-BF16-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-CAUSAL-BF16-LINALG: %[[O:.+]] = flash.attention %{{.+}}, %{{.+}}, %{{.+}} {causal, scale = 0.353553355 : f32} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
// SDPA-CAUSAL-BF16-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
// SDPA-CAUSAL-BF16-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-CAUSAL-BF16-LINALG: return

// SDPA-CAUSAL-BF16-TOSA-LABEL: func.func @forward
// SDPA-CAUSAL-BF16-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-CAUSAL-BF16-TOSA: %[[O:.+]] = flash.attention %{{.+}}, %{{.+}}, %{{.+}} {causal, scale = 0.353553355 : f32} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
// SDPA-CAUSAL-BF16-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
// SDPA-CAUSAL-BF16-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-CAUSAL-BF16-TOSA: return

// SDPA-CAUSAL-F32-LINALG-LABEL: func.func @forward
// SDPA-CAUSAL-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-CAUSAL-F32-LINALG: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {causal, scale = 0.353553355 : f32} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
// SDPA-CAUSAL-F32-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
// SDPA-CAUSAL-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-CAUSAL-F32-LINALG: return

// SDPA-CAUSAL-F32-TOSA-LABEL: func.func @forward
// SDPA-CAUSAL-F32-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-CAUSAL-F32-TOSA: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {causal, scale = 0.353553355 : f32} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
// SDPA-CAUSAL-F32-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
// SDPA-CAUSAL-F32-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-CAUSAL-F32-TOSA: return

// SDPA-GQA-BF16-LINALG-LABEL: func.func @forward
// SDPA-GQA-BF16-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-GQA-BF16-LINALG: %[[O:.+]] = flash.attention %{{.+}}, %{{.+}}, %{{.+}} {scale = 2.500000e-01 : f32} : tensor<2x4x8x16xf32>, tensor<2x2x12x16xf32>, tensor<2x2x12x8xf32> -> tensor<2x4x8x8xf32>
// SDPA-GQA-BF16-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
// SDPA-GQA-BF16-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-GQA-BF16-LINALG: return

// SDPA-GQA-BF16-TOSA-LABEL: func.func @forward
// SDPA-GQA-BF16-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-GQA-BF16-TOSA: %[[O:.+]] = flash.attention %{{.+}}, %{{.+}}, %{{.+}} {scale = 2.500000e-01 : f32} : tensor<2x4x8x16xf32>, tensor<2x2x12x16xf32>, tensor<2x2x12x8xf32> -> tensor<2x4x8x8xf32>
// SDPA-GQA-BF16-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
// SDPA-GQA-BF16-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-GQA-BF16-TOSA: return

// SDPA-GQA-CAUSAL-BF16-LINALG-LABEL: func.func @forward
// SDPA-GQA-CAUSAL-BF16-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-GQA-CAUSAL-BF16-LINALG: %[[O:.+]] = flash.attention %{{.+}}, %{{.+}}, %{{.+}} {causal, scale = 2.500000e-01 : f32} : tensor<2x4x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x8xf32> -> tensor<2x4x8x8xf32>
// SDPA-GQA-CAUSAL-BF16-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
// SDPA-GQA-CAUSAL-BF16-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-GQA-CAUSAL-BF16-LINALG: return

// SDPA-GQA-CAUSAL-BF16-TOSA-LABEL: func.func @forward
// SDPA-GQA-CAUSAL-BF16-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-GQA-CAUSAL-BF16-TOSA: %[[O:.+]] = flash.attention %{{.+}}, %{{.+}}, %{{.+}} {causal, scale = 2.500000e-01 : f32} : tensor<2x4x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x8xf32> -> tensor<2x4x8x8xf32>
// SDPA-GQA-CAUSAL-BF16-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
// SDPA-GQA-CAUSAL-BF16-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-GQA-CAUSAL-BF16-TOSA: return

// SDPA-GQA-CAUSAL-F32-LINALG-LABEL: func.func @forward
// SDPA-GQA-CAUSAL-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-GQA-CAUSAL-F32-LINALG: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f32} : tensor<2x4x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x8xf32> -> tensor<2x4x8x8xf32>
// SDPA-GQA-CAUSAL-F32-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
// SDPA-GQA-CAUSAL-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-GQA-CAUSAL-F32-LINALG: return

// SDPA-GQA-CAUSAL-F32-TOSA-LABEL: func.func @forward
// SDPA-GQA-CAUSAL-F32-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-GQA-CAUSAL-F32-TOSA: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f32} : tensor<2x4x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x8xf32> -> tensor<2x4x8x8xf32>
// SDPA-GQA-CAUSAL-F32-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
// SDPA-GQA-CAUSAL-F32-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-GQA-CAUSAL-F32-TOSA: return

// SDPA-GQA-F32-LINALG-LABEL: func.func @forward
// SDPA-GQA-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-GQA-F32-LINALG: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {scale = 2.500000e-01 : f32} : tensor<2x4x8x16xf32>, tensor<2x2x12x16xf32>, tensor<2x2x12x8xf32> -> tensor<2x4x8x8xf32>
// SDPA-GQA-F32-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
// SDPA-GQA-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-GQA-F32-LINALG: return

// SDPA-GQA-F32-TOSA-LABEL: func.func @forward
// SDPA-GQA-F32-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-GQA-F32-TOSA: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {scale = 2.500000e-01 : f32} : tensor<2x4x8x16xf32>, tensor<2x2x12x16xf32>, tensor<2x2x12x8xf32> -> tensor<2x4x8x8xf32>
// SDPA-GQA-F32-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
// SDPA-GQA-F32-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-GQA-F32-TOSA: return

// SDPA-PLAIN-BF16-LINALG-LABEL: func.func @forward
// SDPA-PLAIN-BF16-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-PLAIN-BF16-LINALG: %[[O:.+]] = flash.attention %{{.+}}, %{{.+}}, %{{.+}} {scale = 0.353553355 : f32} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
// SDPA-PLAIN-BF16-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
// SDPA-PLAIN-BF16-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-PLAIN-BF16-LINALG: return

// SDPA-PLAIN-BF16-TOSA-LABEL: func.func @forward
// SDPA-PLAIN-BF16-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-PLAIN-BF16-TOSA: %[[O:.+]] = flash.attention %{{.+}}, %{{.+}}, %{{.+}} {scale = 0.353553355 : f32} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
// SDPA-PLAIN-BF16-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
// SDPA-PLAIN-BF16-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-PLAIN-BF16-TOSA: return

// SDPA-PLAIN-F32-LINALG-LABEL: func.func @forward
// SDPA-PLAIN-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-PLAIN-F32-LINALG: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {scale = 0.353553355 : f32} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
// SDPA-PLAIN-F32-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
// SDPA-PLAIN-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-PLAIN-F32-LINALG: return

// SDPA-PLAIN-F32-TOSA-LABEL: func.func @forward
// SDPA-PLAIN-F32-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-PLAIN-F32-TOSA: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {scale = 0.353553355 : f32} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
// SDPA-PLAIN-F32-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
// SDPA-PLAIN-F32-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-PLAIN-F32-TOSA: return

// SDPA-SCALE-BF16-LINALG-LABEL: func.func @forward
// SDPA-SCALE-BF16-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-SCALE-BF16-LINALG: %[[O:.+]] = flash.attention %{{.+}}, %{{.+}}, %{{.+}} {scale = 3.000000e-01 : f32} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
// SDPA-SCALE-BF16-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
// SDPA-SCALE-BF16-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-SCALE-BF16-LINALG: return

// SDPA-SCALE-BF16-TOSA-LABEL: func.func @forward
// SDPA-SCALE-BF16-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-SCALE-BF16-TOSA: %[[O:.+]] = flash.attention %{{.+}}, %{{.+}}, %{{.+}} {scale = 3.000000e-01 : f32} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
// SDPA-SCALE-BF16-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
// SDPA-SCALE-BF16-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-SCALE-BF16-TOSA: return

// SDPA-SCALE-F32-LINALG-LABEL: func.func @forward
// SDPA-SCALE-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-SCALE-F32-LINALG: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {scale = 3.000000e-01 : f32} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
// SDPA-SCALE-F32-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
// SDPA-SCALE-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-SCALE-F32-LINALG: return

// SDPA-SCALE-F32-TOSA-LABEL: func.func @forward
// SDPA-SCALE-F32-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-SCALE-F32-TOSA: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {scale = 3.000000e-01 : f32} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
// SDPA-SCALE-F32-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
// SDPA-SCALE-F32-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// SDPA-SCALE-F32-TOSA: return
