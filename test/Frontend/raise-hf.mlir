// Real frontend IR raised by flash-raise-attention: Attention blocks of random-init Hugging Face GPT-2 and Llama (GQA 4/2), weights as
// arguments: the projections, RoPE and output projection stay; the attention is raised.
// The inputs come from scripts/frontend/gen-frontend-ir.py (test/Frontend/Inputs).
// Each check pins the flash.attention (operands, causal, scale, types: GQA kept as
// Hkv < Hq), the collapse back into the frontend's B·H×N×D rows, and that neither
// batch matmul nor the softmax's exp is left anywhere in the function (the HF
// blocks' projections, tosa.matmul in TOSA, stay before and after it).

// RUN: flash-opt %S/Inputs/hf_gpt2_attention_f32.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=HF-GPT2-ATTENTION-F32-LINALG
// RUN: flash-opt %S/Inputs/hf_gpt2_attention_f32.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=HF-GPT2-ATTENTION-F32-TOSA
// RUN: flash-opt %S/Inputs/hf_llama_attention_gqa_f32.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=HF-LLAMA-ATTENTION-GQA-F32-LINALG
// RUN: flash-opt %S/Inputs/hf_llama_attention_gqa_f32.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=HF-LLAMA-ATTENTION-GQA-F32-TOSA

// HF-GPT2-ATTENTION-F32-LINALG-LABEL: func.func @forward
// HF-GPT2-ATTENTION-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// HF-GPT2-ATTENTION-F32-LINALG: %[[O:.+]] = flash.attention %{{.+}}, %{{.+}}, %{{.+}} {causal, scale = 2.500000e-01 : f32} : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
// HF-GPT2-ATTENTION-F32-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x16xf32> into tensor<2x8x16xf32>
// HF-GPT2-ATTENTION-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// HF-GPT2-ATTENTION-F32-LINALG: return

// HF-GPT2-ATTENTION-F32-TOSA-LABEL: func.func @forward
// HF-GPT2-ATTENTION-F32-TOSA-NOT: {{math.exp|tosa.exp|batch_matmul}}
// HF-GPT2-ATTENTION-F32-TOSA: tosa.matmul
// HF-GPT2-ATTENTION-F32-TOSA-NOT: {{math.exp|tosa.exp|batch_matmul}}
// HF-GPT2-ATTENTION-F32-TOSA: %[[O:.+]] = flash.attention %{{.+}}, %{{.+}}, %{{.+}} {causal, scale = 2.500000e-01 : f32} : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
// HF-GPT2-ATTENTION-F32-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x16xf32> into tensor<2x8x16xf32>
// HF-GPT2-ATTENTION-F32-TOSA-NOT: {{math.exp|tosa.exp|batch_matmul}}
// HF-GPT2-ATTENTION-F32-TOSA: tosa.matmul
// HF-GPT2-ATTENTION-F32-TOSA-NOT: {{math.exp|tosa.exp|batch_matmul}}
// HF-GPT2-ATTENTION-F32-TOSA: return

// HF-LLAMA-ATTENTION-GQA-F32-LINALG-LABEL: func.func @forward
// HF-LLAMA-ATTENTION-GQA-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// HF-LLAMA-ATTENTION-GQA-F32-LINALG: %[[O:.+]] = flash.attention %{{.+}}, %{{.+}}, %{{.+}} {causal, scale = 0.353553385 : f32} : tensor<1x4x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x4x8x8xf32>
// HF-LLAMA-ATTENTION-GQA-F32-LINALG-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x4x8x8xf32> into tensor<4x8x8xf32>
// HF-LLAMA-ATTENTION-GQA-F32-LINALG-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// HF-LLAMA-ATTENTION-GQA-F32-LINALG: return

// HF-LLAMA-ATTENTION-GQA-F32-TOSA-LABEL: func.func @forward
// HF-LLAMA-ATTENTION-GQA-F32-TOSA-NOT: {{math.exp|tosa.exp|batch_matmul}}
// HF-LLAMA-ATTENTION-GQA-F32-TOSA: tosa.matmul
// HF-LLAMA-ATTENTION-GQA-F32-TOSA-NOT: {{math.exp|tosa.exp|batch_matmul}}
// HF-LLAMA-ATTENTION-GQA-F32-TOSA: %[[O:.+]] = flash.attention %{{.+}}, %{{.+}}, %{{.+}} {causal, scale = 0.353553385 : f32} : tensor<1x4x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x4x8x8xf32>
// HF-LLAMA-ATTENTION-GQA-F32-TOSA-NEXT: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x4x8x8xf32> into tensor<4x8x8xf32>
// HF-LLAMA-ATTENTION-GQA-F32-TOSA-NOT: {{math.exp|tosa.exp|batch_matmul}}
// HF-LLAMA-ATTENTION-GQA-F32-TOSA: tosa.matmul
// HF-LLAMA-ATTENTION-GQA-F32-TOSA-NOT: {{math.exp|tosa.exp|batch_matmul}}
// HF-LLAMA-ATTENTION-GQA-F32-TOSA: return
