// Near misses: flash-raise-attention must leave these functions exactly as they are.
// softmax over dim -2, a non-causal additive bias (a random constant), dropout in
// train mode, tanh between Q·Kᵀ and the softmax, and SDPA's is_causal with Nq=4 != Nk=8
// (top-left diagonal; flash.attention's causal is bottom-right).
// Each check: no flash.attention, both matmuls kept.

// RUN: flash-opt %S/Inputs/miss_additive_bias_f32.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=MISS-ADDITIVE-BIAS-F32-LINALG
// RUN: flash-opt %S/Inputs/miss_additive_bias_f32.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=MISS-ADDITIVE-BIAS-F32-TOSA
// RUN: flash-opt %S/Inputs/miss_dropout_f32.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=MISS-DROPOUT-F32-LINALG
// RUN: flash-opt %S/Inputs/miss_dropout_f32.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=MISS-DROPOUT-F32-TOSA
// RUN: flash-opt %S/Inputs/miss_sdpa_causal_topleft_f32.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=MISS-SDPA-CAUSAL-TOPLEFT-F32-LINALG
// RUN: flash-opt %S/Inputs/miss_sdpa_causal_topleft_f32.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=MISS-SDPA-CAUSAL-TOPLEFT-F32-TOSA
// RUN: flash-opt %S/Inputs/miss_softmax_dim2_f32.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=MISS-SOFTMAX-DIM2-F32-LINALG
// RUN: flash-opt %S/Inputs/miss_softmax_dim2_f32.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=MISS-SOFTMAX-DIM2-F32-TOSA
// RUN: flash-opt %S/Inputs/miss_tanh_f32.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=MISS-TANH-F32-LINALG
// RUN: flash-opt %S/Inputs/miss_tanh_f32.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=MISS-TANH-F32-TOSA

// MISS-ADDITIVE-BIAS-F32-LINALG-LABEL: func.func @forward
// MISS-ADDITIVE-BIAS-F32-LINALG-NOT: flash.attention
// MISS-ADDITIVE-BIAS-F32-LINALG: linalg.batch_matmul
// MISS-ADDITIVE-BIAS-F32-LINALG-NOT: flash.attention
// MISS-ADDITIVE-BIAS-F32-LINALG: linalg.batch_matmul
// MISS-ADDITIVE-BIAS-F32-LINALG-NOT: flash.attention

// MISS-ADDITIVE-BIAS-F32-TOSA-LABEL: func.func @forward
// MISS-ADDITIVE-BIAS-F32-TOSA-NOT: flash.attention
// MISS-ADDITIVE-BIAS-F32-TOSA: tosa.matmul
// MISS-ADDITIVE-BIAS-F32-TOSA-NOT: flash.attention
// MISS-ADDITIVE-BIAS-F32-TOSA: tosa.matmul
// MISS-ADDITIVE-BIAS-F32-TOSA-NOT: flash.attention

// MISS-DROPOUT-F32-LINALG-LABEL: func.func @forward
// MISS-DROPOUT-F32-LINALG-NOT: flash.attention
// MISS-DROPOUT-F32-LINALG: linalg.batch_matmul
// MISS-DROPOUT-F32-LINALG-NOT: flash.attention
// MISS-DROPOUT-F32-LINALG: linalg.batch_matmul
// MISS-DROPOUT-F32-LINALG-NOT: flash.attention

// MISS-DROPOUT-F32-TOSA-LABEL: func.func @forward
// MISS-DROPOUT-F32-TOSA-NOT: flash.attention
// MISS-DROPOUT-F32-TOSA: tosa.matmul
// MISS-DROPOUT-F32-TOSA-NOT: flash.attention
// MISS-DROPOUT-F32-TOSA: tosa.matmul
// MISS-DROPOUT-F32-TOSA-NOT: flash.attention

// MISS-SDPA-CAUSAL-TOPLEFT-F32-LINALG-LABEL: func.func @forward
// MISS-SDPA-CAUSAL-TOPLEFT-F32-LINALG-NOT: flash.attention
// MISS-SDPA-CAUSAL-TOPLEFT-F32-LINALG: linalg.batch_matmul
// MISS-SDPA-CAUSAL-TOPLEFT-F32-LINALG-NOT: flash.attention
// MISS-SDPA-CAUSAL-TOPLEFT-F32-LINALG: linalg.batch_matmul
// MISS-SDPA-CAUSAL-TOPLEFT-F32-LINALG-NOT: flash.attention

// MISS-SDPA-CAUSAL-TOPLEFT-F32-TOSA-LABEL: func.func @forward
// MISS-SDPA-CAUSAL-TOPLEFT-F32-TOSA-NOT: flash.attention
// MISS-SDPA-CAUSAL-TOPLEFT-F32-TOSA: tosa.matmul
// MISS-SDPA-CAUSAL-TOPLEFT-F32-TOSA-NOT: flash.attention
// MISS-SDPA-CAUSAL-TOPLEFT-F32-TOSA: tosa.matmul
// MISS-SDPA-CAUSAL-TOPLEFT-F32-TOSA-NOT: flash.attention

// MISS-SOFTMAX-DIM2-F32-LINALG-LABEL: func.func @forward
// MISS-SOFTMAX-DIM2-F32-LINALG-NOT: flash.attention
// MISS-SOFTMAX-DIM2-F32-LINALG: linalg.batch_matmul
// MISS-SOFTMAX-DIM2-F32-LINALG-NOT: flash.attention
// MISS-SOFTMAX-DIM2-F32-LINALG: linalg.batch_matmul
// MISS-SOFTMAX-DIM2-F32-LINALG-NOT: flash.attention

// MISS-SOFTMAX-DIM2-F32-TOSA-LABEL: func.func @forward
// MISS-SOFTMAX-DIM2-F32-TOSA-NOT: flash.attention
// MISS-SOFTMAX-DIM2-F32-TOSA: tosa.matmul
// MISS-SOFTMAX-DIM2-F32-TOSA-NOT: flash.attention
// MISS-SOFTMAX-DIM2-F32-TOSA: tosa.matmul
// MISS-SOFTMAX-DIM2-F32-TOSA-NOT: flash.attention

// MISS-TANH-F32-LINALG-LABEL: func.func @forward
// MISS-TANH-F32-LINALG-NOT: flash.attention
// MISS-TANH-F32-LINALG: linalg.batch_matmul
// MISS-TANH-F32-LINALG-NOT: flash.attention
// MISS-TANH-F32-LINALG: linalg.batch_matmul
// MISS-TANH-F32-LINALG-NOT: flash.attention

// MISS-TANH-F32-TOSA-LABEL: func.func @forward
// MISS-TANH-F32-TOSA-NOT: flash.attention
// MISS-TANH-F32-TOSA: tosa.matmul
// MISS-TANH-F32-TOSA-NOT: flash.attention
// MISS-TANH-F32-TOSA: tosa.matmul
// MISS-TANH-F32-TOSA-NOT: flash.attention
