// Real frontend IR raised by flash-raise-attention: softmax(Q·Kᵀ·s [+ causal mask])·V as eager GPT-2 / Llama code writes it:
// where(arange compare, s, finfo.min), repeat_kv + additive triu mask, no mask.
// The inputs come from scripts/frontend/gen-frontend-ir.py (test/Frontend/Inputs).
// Each check pins the flash.attention (operands, causal, scale, types: GQA kept as
// Hkv < Hq), the collapse back into the frontend's B·H×N×D rows, and that neither
// batch matmul nor the softmax's exp is left anywhere in the function.

// RUN: flash-opt %S/Inputs/eager_gpt2_causal_bf16.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=EAGER-GPT2-CAUSAL-BF16-LINALG
// RUN: flash-opt %S/Inputs/eager_gpt2_causal_bf16.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=EAGER-GPT2-CAUSAL-BF16-TOSA
// RUN: flash-opt %S/Inputs/eager_gpt2_causal_f32.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=EAGER-GPT2-CAUSAL-F32-LINALG
// RUN: flash-opt %S/Inputs/eager_gpt2_causal_f32.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=EAGER-GPT2-CAUSAL-F32-TOSA
// RUN: flash-opt %S/Inputs/eager_llama_gqa_causal_bf16.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=EAGER-LLAMA-GQA-CAUSAL-BF16-LINALG
// RUN: flash-opt %S/Inputs/eager_llama_gqa_causal_bf16.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=EAGER-LLAMA-GQA-CAUSAL-BF16-TOSA
// RUN: flash-opt %S/Inputs/eager_llama_gqa_causal_f32.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=EAGER-LLAMA-GQA-CAUSAL-F32-LINALG
// RUN: flash-opt %S/Inputs/eager_llama_gqa_causal_f32.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=EAGER-LLAMA-GQA-CAUSAL-F32-TOSA
// RUN: flash-opt %S/Inputs/eager_plain_bf16.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=EAGER-PLAIN-BF16-LINALG
// RUN: flash-opt %S/Inputs/eager_plain_bf16.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=EAGER-PLAIN-BF16-TOSA
// RUN: flash-opt %S/Inputs/eager_plain_f32.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=EAGER-PLAIN-F32-LINALG
// RUN: flash-opt %S/Inputs/eager_plain_f32.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=EAGER-PLAIN-F32-TOSA

// EAGER-GPT2-CAUSAL-BF16-LINALG-LABEL: func.func @forward
// EAGER-GPT2-CAUSAL-BF16-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-GPT2-CAUSAL-BF16-LINALG: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f32} : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x8x16xbf16>
// EAGER-GPT2-CAUSAL-BF16-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x16xbf16> into tensor<2x8x16xbf16>
// EAGER-GPT2-CAUSAL-BF16-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-GPT2-CAUSAL-BF16-LINALG: return

// EAGER-GPT2-CAUSAL-BF16-TOSA-LABEL: func.func @forward
// EAGER-GPT2-CAUSAL-BF16-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-GPT2-CAUSAL-BF16-TOSA: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f32} : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x8x16xbf16>
// EAGER-GPT2-CAUSAL-BF16-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x16xbf16> into tensor<2x8x16xbf16>
// EAGER-GPT2-CAUSAL-BF16-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-GPT2-CAUSAL-BF16-TOSA: return

// EAGER-GPT2-CAUSAL-F32-LINALG-LABEL: func.func @forward
// EAGER-GPT2-CAUSAL-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-GPT2-CAUSAL-F32-LINALG: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f32} : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
// EAGER-GPT2-CAUSAL-F32-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x16xf32> into tensor<2x8x16xf32>
// EAGER-GPT2-CAUSAL-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-GPT2-CAUSAL-F32-LINALG: return

// EAGER-GPT2-CAUSAL-F32-TOSA-LABEL: func.func @forward
// EAGER-GPT2-CAUSAL-F32-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-GPT2-CAUSAL-F32-TOSA: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f32} : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
// EAGER-GPT2-CAUSAL-F32-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x16xf32> into tensor<2x8x16xf32>
// EAGER-GPT2-CAUSAL-F32-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-GPT2-CAUSAL-F32-TOSA: return

// EAGER-LLAMA-GQA-CAUSAL-BF16-LINALG-LABEL: func.func @forward
// EAGER-LLAMA-GQA-CAUSAL-BF16-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-LLAMA-GQA-CAUSAL-BF16-LINALG: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f32} : tensor<1x4x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x4x8x16xbf16>
// EAGER-LLAMA-GQA-CAUSAL-BF16-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x4x8x16xbf16> into tensor<4x8x16xbf16>
// EAGER-LLAMA-GQA-CAUSAL-BF16-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-LLAMA-GQA-CAUSAL-BF16-LINALG: return

// EAGER-LLAMA-GQA-CAUSAL-BF16-TOSA-LABEL: func.func @forward
// EAGER-LLAMA-GQA-CAUSAL-BF16-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-LLAMA-GQA-CAUSAL-BF16-TOSA: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f32} : tensor<1x4x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x4x8x16xbf16>
// EAGER-LLAMA-GQA-CAUSAL-BF16-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x4x8x16xbf16> into tensor<4x8x16xbf16>
// EAGER-LLAMA-GQA-CAUSAL-BF16-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-LLAMA-GQA-CAUSAL-BF16-TOSA: return

// EAGER-LLAMA-GQA-CAUSAL-F32-LINALG-LABEL: func.func @forward
// EAGER-LLAMA-GQA-CAUSAL-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-LLAMA-GQA-CAUSAL-F32-LINALG: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f32} : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x4x8x16xf32>
// EAGER-LLAMA-GQA-CAUSAL-F32-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x4x8x16xf32> into tensor<4x8x16xf32>
// EAGER-LLAMA-GQA-CAUSAL-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-LLAMA-GQA-CAUSAL-F32-LINALG: return

// EAGER-LLAMA-GQA-CAUSAL-F32-TOSA-LABEL: func.func @forward
// EAGER-LLAMA-GQA-CAUSAL-F32-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-LLAMA-GQA-CAUSAL-F32-TOSA: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f32} : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x4x8x16xf32>
// EAGER-LLAMA-GQA-CAUSAL-F32-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x4x8x16xf32> into tensor<4x8x16xf32>
// EAGER-LLAMA-GQA-CAUSAL-F32-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-LLAMA-GQA-CAUSAL-F32-TOSA: return

// EAGER-PLAIN-BF16-LINALG-LABEL: func.func @forward
// EAGER-PLAIN-BF16-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-PLAIN-BF16-LINALG: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {scale = 2.500000e-01 : f32} : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x8x16xbf16>
// EAGER-PLAIN-BF16-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x16xbf16> into tensor<2x8x16xbf16>
// EAGER-PLAIN-BF16-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-PLAIN-BF16-LINALG: return

// EAGER-PLAIN-BF16-TOSA-LABEL: func.func @forward
// EAGER-PLAIN-BF16-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-PLAIN-BF16-TOSA: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {scale = 2.500000e-01 : f32} : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x8x16xbf16>
// EAGER-PLAIN-BF16-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x16xbf16> into tensor<2x8x16xbf16>
// EAGER-PLAIN-BF16-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-PLAIN-BF16-TOSA: return

// EAGER-PLAIN-F32-LINALG-LABEL: func.func @forward
// EAGER-PLAIN-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-PLAIN-F32-LINALG: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {scale = 2.500000e-01 : f32} : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
// EAGER-PLAIN-F32-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x16xf32> into tensor<2x8x16xf32>
// EAGER-PLAIN-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-PLAIN-F32-LINALG: return

// EAGER-PLAIN-F32-TOSA-LABEL: func.func @forward
// EAGER-PLAIN-F32-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-PLAIN-F32-TOSA: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {scale = 2.500000e-01 : f32} : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
// EAGER-PLAIN-F32-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x16xf32> into tensor<2x8x16xf32>
// EAGER-PLAIN-F32-TOSA-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// EAGER-PLAIN-F32-TOSA: return
