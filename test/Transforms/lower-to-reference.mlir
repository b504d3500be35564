// RUN: flash-opt %s --flash-lower-to-reference --split-input-file | FileCheck %s

// The reference lowering: whole-tensor linalg that follows the definition.
// GQA views Q as B×Hkv×G×Nq×D and broadcasts K and V over G; the scores are
// materialised at full Nq×Nk size (this is the oracle, not the fast path).

// CHECK-LABEL: func.func @gqa_causal_lse
// CHECK-SAME: (%[[Q:.+]]: tensor<2x8x7x16xf16>, %[[K:.+]]: tensor<2x2x9x16xf16>, %[[V:.+]]: tensor<2x2x9x32xf16>)
// CHECK-NOT: flash.attention
// CHECK: %[[Q5:.+]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 4, 7, 16]
// CHECK: %[[K5:.+]] = linalg.broadcast ins(%[[K]] : tensor<2x2x9x16xf16>) outs(%{{.+}} : tensor<2x2x4x9x16xf16>) dimensions = [2]
// CHECK: %[[V5:.+]] = linalg.broadcast ins(%[[V]] : tensor<2x2x9x32xf16>) outs(%{{.+}} : tensor<2x2x4x9x32xf16>) dimensions = [2]
// S = Q·Kᵀ accumulates in f32 from f16 operands, then is scaled.
// CHECK: %[[DOT:.+]] = linalg.generic {{.*}} ins(%[[Q5]], %[[K5]] : {{.*}}) outs(%{{.+}} : tensor<2x2x4x7x9xf32>)
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[S:.+]] = linalg.generic {{.*}} ins(%[[DOT]] : tensor<2x2x4x7x9xf32>)
// The causal mask compares key index with row + (Nk - Nq) = row + 2.
// CHECK: %[[MASKED:.+]] = linalg.generic {{.*}} ins(%[[S]] : tensor<2x2x4x7x9xf32>)
// CHECK: linalg.index 3
// CHECK: linalg.index 4
// CHECK: arith.cmpi sgt
// CHECK: arith.select
// Row max, exp(S - max), row sum, P·V, normalise.
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]{{.*}} ins(%[[MASKED]] : tensor<2x2x4x7x9xf32>)
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.addf
// CHECK: %[[ACC:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[V5]] : tensor<2x2x4x7x9xf32>, tensor<2x2x4x9x32xf16>) outs(%{{.+}} : tensor<2x2x4x7x32xf32>)
// CHECK: %[[O5:.+]] = linalg.generic {{.*}} ins(%[[ACC]], %[[SUM]] : {{.*}}) outs(%{{.+}} : tensor<2x2x4x7x32xf16>)
// CHECK: arith.divf
// CHECK: arith.truncf
// CHECK: %[[O:.+]] = tensor.collapse_shape %[[O5]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x4x7x32xf16> into tensor<2x8x7x32xf16>
// LSE = m + log(l), -inf where l = 0.
// CHECK: %[[LSE4:.+]] = linalg.generic {{.*}} ins(%[[MAX]], %[[SUM]] : {{.*}})
// CHECK: math.log
// CHECK: %[[LSE:.+]] = tensor.collapse_shape %[[LSE4]] {{\[}}[0], [1, 2], [3]] : tensor<2x2x4x7xf32> into tensor<2x8x7xf32>
// CHECK: return %[[O]], %[[LSE]]
func.func @gqa_causal_lse(%q: tensor<2x8x7x16xf16>, %k: tensor<2x2x9x16xf16>, %v: tensor<2x2x9x32xf16>) -> (tensor<2x8x7x32xf16>, tensor<2x8x7xf32>) {
  %o, %l = flash.attention %q, %k, %v {causal} : tensor<2x8x7x16xf16>, tensor<2x2x9x16xf16>, tensor<2x2x9x32xf16> -> tensor<2x8x7x32xf16>, tensor<2x8x7xf32>
  return %o, %l : tensor<2x8x7x32xf16>, tensor<2x8x7xf32>
}

// -----

// Without causal there is no mask; the default scale is 1/sqrt(D) = 0.25.
// CHECK-LABEL: func.func @plain
// CHECK-DAG: %[[SCALE:.+]] = arith.constant 2.500000e-01 : f32
// CHECK-NOT: linalg.index
// CHECK: arith.mulf %{{.+}}, %[[SCALE]] : f32
// CHECK-NOT: linalg.index
// CHECK: return
func.func @plain(%q: tensor<1x1x5x16xf32>, %k: tensor<1x1x5x16xf32>, %v: tensor<1x1x5x16xf32>) -> tensor<1x1x5x16xf32> {
  %o = flash.attention %q, %k, %v : tensor<1x1x5x16xf32>, tensor<1x1x5x16xf32>, tensor<1x1x5x16xf32> -> tensor<1x1x5x16xf32>
  return %o : tensor<1x1x5x16xf32>
}

// -----

// flash.attention_backward on whole tensors: Q, O, dO and LSE viewed as
// B×Hkv×G×..., K and V broadcast over G; S and its mask as the forward's;
// P = exp(S - LSE), 0 where LSE = -inf; D = rowsum(dO ∘ O); dP = dO·Vᵀ;
// dS = P ∘ (dP - D); dV and dK reduce over the group's q-heads (G) and the
// query rows into B×Hkv×Nk×...; dQ = dS·K per q-head; the scale (1/sqrt(16))
// on dQ and dK at the conversion to f16. The Nq×Nk scores, P, dP and dS
// (2x2x4x7x9) are materialised: this is the oracle.
// CHECK-LABEL: func.func @backward_gqa_causal
// CHECK-SAME: (%[[Q:.+]]: tensor<2x8x7x16xf16>, %[[K:.+]]: tensor<2x2x9x16xf16>, %[[V:.+]]: tensor<2x2x9x32xf16>, %[[O:.+]]: tensor<2x8x7x32xf16>, %[[DO:.+]]: tensor<2x8x7x32xf16>, %[[LSE:.+]]: tensor<2x8x7xf32>)
// CHECK-NOT: flash.attention_backward
// CHECK-DAG: %[[Q5:.+]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 4, 7, 16]
// CHECK-DAG: %[[O5:.+]] = tensor.expand_shape %[[O]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 4, 7, 32]
// CHECK-DAG: %[[DO5:.+]] = tensor.expand_shape %[[DO]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 4, 7, 32]
// CHECK-DAG: %[[LSE4:.+]] = tensor.expand_shape %[[LSE]] {{\[}}[0], [1, 2], [3]] output_shape [2, 2, 4, 7]
// CHECK-DAG: %[[K5:.+]] = linalg.broadcast ins(%[[K]] : tensor<2x2x9x16xf16>) outs(%{{.+}} : tensor<2x2x4x9x16xf16>) dimensions = [2]
// CHECK-DAG: %[[V5:.+]] = linalg.broadcast ins(%[[V]] : tensor<2x2x9x32xf16>) outs(%{{.+}} : tensor<2x2x4x9x32xf16>) dimensions = [2]
// CHECK: %[[DOT:.+]] = linalg.generic {{.*}} ins(%[[Q5]], %[[K5]] : {{.*}}) outs(%{{.+}} : tensor<2x2x4x7x9xf32>)
// CHECK: %[[S:.+]] = linalg.generic {{.*}} ins(%[[DOT]] : tensor<2x2x4x7x9xf32>)
// CHECK: arith.constant 2.500000e-01 : f32
// CHECK: %[[SM:.+]] = linalg.generic {{.*}} ins(%[[S]] : tensor<2x2x4x7x9xf32>)
// CHECK: arith.cmpi sgt
// P = exp(S - LSE), selected to 0 where LSE = -inf.
// CHECK: %[[P:.+]] = linalg.generic {{.*}} ins(%[[SM]], %[[LSE4]] : tensor<2x2x4x7x9xf32>, tensor<2x2x4x7xf32>)
// CHECK: %[[EMPTY:.+]] = arith.cmpf oeq, %{{.+}}, %{{.+}} : f32
// CHECK: %[[DIFF:.+]] = arith.subf
// CHECK: %[[EXP:.+]] = math.exp %[[DIFF]] : f32
// CHECK: arith.select %[[EMPTY]], %{{.+}}, %[[EXP]] : f32
// CHECK: %[[D:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]{{.*}} ins(%[[DO5]], %[[O5]] : tensor<2x2x4x7x32xf16>, tensor<2x2x4x7x32xf16>) outs(%{{.+}} : tensor<2x2x4x7xf32>)
// CHECK: %[[DPDOT:.+]] = linalg.generic {{.*}} ins(%[[DO5]], %[[V5]] : {{.*}}) outs(%{{.+}} : tensor<2x2x4x7x9xf32>)
// CHECK: %[[DP:.+]] = linalg.generic {{.*}} ins(%[[DPDOT]] : tensor<2x2x4x7x9xf32>)
// CHECK: %[[DS:.+]] = linalg.generic {{.*}} ins(%[[P]], %[[DP]], %[[D]] : tensor<2x2x4x7x9xf32>, tensor<2x2x4x7x9xf32>, tensor<2x2x4x7xf32>)
// CHECK: arith.subf
// CHECK: arith.mulf
// dV and dK: two reductions (the group's q-heads, the query rows).
// CHECK: %[[DV:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]{{.*}} ins(%[[P]], %[[DO5]] : tensor<2x2x4x7x9xf32>, tensor<2x2x4x7x32xf16>) outs(%{{.+}} : tensor<2x2x9x32xf32>)
// CHECK: %[[DK:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]{{.*}} ins(%[[DS]], %[[Q5]] : tensor<2x2x4x7x9xf32>, tensor<2x2x4x7x16xf16>) outs(%{{.+}} : tensor<2x2x9x16xf32>)
// CHECK: %[[DQ5:.+]] = linalg.generic {{.*}} ins(%[[DS]], %[[K5]] : tensor<2x2x4x7x9xf32>, tensor<2x2x4x9x16xf16>) outs(%{{.+}} : tensor<2x2x4x7x16xf32>)
// CHECK: %[[DQH:.+]] = linalg.generic {{.*}} ins(%[[DQ5]] : tensor<2x2x4x7x16xf32>) outs(%{{.+}} : tensor<2x2x4x7x16xf16>)
// CHECK: arith.constant 2.500000e-01 : f32
// CHECK: arith.truncf
// CHECK: %[[DQR:.+]] = tensor.collapse_shape %[[DQH]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x4x7x16xf16> into tensor<2x8x7x16xf16>
// CHECK: %[[DKR:.+]] = linalg.generic {{.*}} ins(%[[DK]] : tensor<2x2x9x16xf32>) outs(%{{.+}} : tensor<2x2x9x16xf16>)
// CHECK: arith.constant 2.500000e-01 : f32
// CHECK: %[[DVR:.+]] = linalg.generic {{.*}} ins(%[[DV]] : tensor<2x2x9x32xf32>) outs(%{{.+}} : tensor<2x2x9x32xf16>)
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK: return %[[DQR]], %[[DKR]], %[[DVR]]
func.func @backward_gqa_causal(%q: tensor<2x8x7x16xf16>, %k: tensor<2x2x9x16xf16>, %v: tensor<2x2x9x32xf16>,
                               %o: tensor<2x8x7x32xf16>, %do: tensor<2x8x7x32xf16>, %lse: tensor<2x8x7xf32>)
    -> (tensor<2x8x7x16xf16>, tensor<2x2x9x16xf16>, tensor<2x2x9x32xf16>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {causal}
      : tensor<2x8x7x16xf16>, tensor<2x2x9x16xf16>, tensor<2x2x9x32xf16>, tensor<2x8x7x32xf16>, tensor<2x8x7x32xf16>, tensor<2x8x7xf32>
      -> tensor<2x8x7x16xf16>, tensor<2x2x9x16xf16>, tensor<2x2x9x32xf16>
  return %dq, %dk, %dv : tensor<2x8x7x16xf16>, tensor<2x2x9x16xf16>, tensor<2x2x9x32xf16>
}
