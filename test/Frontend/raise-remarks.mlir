// flash-raise-attention{remarks=true}: each near miss (a batch matmul whose left
// operand is computed through an exp, not raised) gets a remark at the P·V matmul
// naming the first step that refused it; raised attention and plain matmuls get none,
// and without the option nothing is said.

// RUN: flash-opt %S/Inputs/miss_additive_bias_f32.linalg.mlir --flash-raise-attention=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=BIAS
// RUN: flash-opt %S/Inputs/miss_additive_bias_f32.tosa.mlir --flash-raise-attention=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=BIAS
// RUN: flash-opt %S/Inputs/miss_dropout_f32.linalg.mlir --flash-raise-attention=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=DROPOUT-LINALG
// RUN: flash-opt %S/Inputs/miss_dropout_f32.tosa.mlir --flash-raise-attention=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=DROPOUT-TOSA
// RUN: flash-opt %S/Inputs/miss_sdpa_causal_topleft_f32.linalg.mlir --flash-raise-attention=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOPLEFT
// RUN: flash-opt %S/Inputs/miss_sdpa_causal_topleft_f32.tosa.mlir --flash-raise-attention=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOPLEFT
// RUN: flash-opt %S/Inputs/miss_softmax_dim2_f32.linalg.mlir --flash-raise-attention=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIM2
// RUN: flash-opt %S/Inputs/miss_softmax_dim2_f32.tosa.mlir --flash-raise-attention=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIM2
// RUN: flash-opt %S/Inputs/miss_tanh_f32.linalg.mlir --flash-raise-attention=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=TANH-LINALG
// RUN: flash-opt %S/Inputs/miss_tanh_f32.tosa.mlir --flash-raise-attention=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=TANH-TOSA
// Raised inputs: no remark.
// RUN: flash-opt %S/Inputs/sdpa_gqa_causal_f32.linalg.mlir --flash-raise-attention=remarks=true -o /dev/null 2>&1 | count 0
// RUN: flash-opt %S/Inputs/hf_llama_attention_gqa_f32.tosa.mlir --flash-raise-attention=remarks=true -o /dev/null 2>&1 | count 0
// Without the option: no remark on a near miss.
// RUN: flash-opt %S/Inputs/miss_tanh_f32.linalg.mlir --flash-raise-attention -o /dev/null 2>&1 | count 0
// The size limit: the GPT-2 style input with N = 8 rewritten to N = 2048 (its causal
// (i, j) mask evaluated on 2048^2 = 2^22 points: raised) and N = 2049 (not raised, said why).
// RUN: sed -E 's/1x2x16x8x/1x2x16xNNx/g; s/1x2x8x16x/1x2xNNx16x/g; s/1x2x8x8x/1x2xNNxNNx/g; s/1x2x8x/1x2xNNx/g; s/1x8x/1xNNx/g; s/2x16x8x/2x16xNNx/g; s/2x8x16x/2xNNx16x/g; s/2x8x8x/2xNNxNNx/g; s/<8x1x/<NNx1x/g; s/<8x8x/<NNxNNx/g; s/<8x/<NNx/g; s/output_shape \[1, 2, 8, 8\]/output_shape [1, 2, NN, NN]/; s/output_shape \[1, 8\]/output_shape [1, NN]/; s/output_shape \[8, 1\]/output_shape [NN, 1]/; s/NN/2048/g' %S/Inputs/eager_gpt2_causal_f32.linalg.mlir | flash-opt --flash-raise-attention=remarks=true 2>&1 | FileCheck %s --check-prefix=N2048
// RUN: sed -E 's/1x2x16x8x/1x2x16xNNx/g; s/1x2x8x16x/1x2xNNx16x/g; s/1x2x8x8x/1x2xNNxNNx/g; s/1x2x8x/1x2xNNx/g; s/1x8x/1xNNx/g; s/2x16x8x/2x16xNNx/g; s/2x8x16x/2xNNx16x/g; s/2x8x8x/2xNNxNNx/g; s/<8x1x/<NNx1x/g; s/<8x8x/<NNxNNx/g; s/<8x/<NNx/g; s/output_shape \[1, 2, 8, 8\]/output_shape [1, 2, NN, NN]/; s/output_shape \[1, 8\]/output_shape [1, NN]/; s/output_shape \[8, 1\]/output_shape [NN, 1]/; s/NN/2049/g' %S/Inputs/eager_gpt2_causal_f32.linalg.mlir | flash-opt --flash-raise-attention=remarks=true 2>&1 | FileCheck %s --check-prefix=N2049
// A batch matmul that reads no exp is not a candidate: no remark.
// RUN: flash-opt %s --flash-raise-attention=remarks=true -o /dev/null 2>&1 | count 0

// BIAS: remark: flash-raise-attention: not raised: an additive bias that is neither 0 nor masked (-0.820135)
// BIAS-NOT: remark
// DROPOUT-LINALG: remark: flash-raise-attention: not raised: the softmax's numerator is not exp(S - rowmax(S)) (an op after the softmax, e.g. dropout, or inside it)
// DROPOUT-LINALG-NOT: remark
// DROPOUT-TOSA: remark: flash-raise-attention: not raised: P·V reads no softmax E / rowsum(E) directly (an op after the softmax, e.g. dropout)
// DROPOUT-TOSA-NOT: remark
// TOPLEFT: remark: flash-raise-attention: not raised: a top-left causal mask (j > i) with Nq != Nk; flash.attention's causal is bottom-right (j > i + Nk - Nq)
// TOPLEFT-NOT: remark
// DIM2: remark: flash-raise-attention: not raised: the softmax's sum is not over the last (key) dimension of its own exp
// DIM2-NOT: remark
// TANH-LINALG: remark: flash-raise-attention: not raised: an op between Q·Kᵀ and the softmax that changes values: linalg.generic {math.tanh}
// TANH-LINALG-NOT: remark
// TANH-TOSA: remark: flash-raise-attention: not raised: an op between Q·Kᵀ and the softmax that changes values: tosa.tanh
// TANH-TOSA-NOT: remark
// N2048-NOT: remark
// N2048: flash.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f32} : tensor<1x2x2048x16xf32>
// N2049: remark: flash-raise-attention: not raised: the mask would be evaluated on 4198401 elements (Nq*Nk), more than 2^22: not supported yet
// N2049-NOT: flash.attention

func.func @plain_matmul(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>) -> tensor<2x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %c = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%init : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %c : tensor<2x4x4xf32>
}
