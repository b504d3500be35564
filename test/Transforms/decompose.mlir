// RUN: flash-opt %s --flash-decompose --split-input-file | FileCheck %s
// RUN: flash-opt %s --flash-decompose --split-input-file | FileCheck %s --check-prefix=NOFLASH

// flash-decompose: every L1 tile op becomes tile-sized linalg on tensors.
// NOFLASH-NOT: flash.

// load_tile: the valid rows of the head, zero-padded up to the tile height.
// CHECK-LABEL: func.func @load_tile
// CHECK-SAME: (%[[K:.+]]: tensor<2x2x100x64xf16>, %[[B:.+]]: index, %[[H:.+]]: index, %[[ROW:.+]]: index)
// CHECK: %[[C100:.+]] = arith.constant 100 : index
// CHECK: %[[START:.+]] = arith.minsi %[[ROW]], %[[C100]] : index
// CHECK: %[[REM:.+]] = arith.subi %{{.+}}, %[[START]] : index
// CHECK: %[[VALID:.+]] = arith.minsi %[[REM]], %{{.+}} : index
// CHECK: %[[SLICE:.+]] = tensor.extract_slice %[[K]][%[[B]], %[[H]], %[[START]], 0] [1, 1, %[[VALID]], 64] [1, 1, 1, 1] : tensor<2x2x100x64xf16> to tensor<?x64xf16>
// CHECK: %[[PAD:.+]] = tensor.pad %[[SLICE]] low[0, 0] high[%{{.+}}, 0]
// CHECK: tensor.yield %{{.+}} : f16
// CHECK: return %[[PAD]] : tensor<32x64xf16>
func.func @load_tile(%k: tensor<2x2x100x64xf16>, %b: index, %h: index, %row: index) -> tensor<32x64xf16> {
  %t = flash.load_tile %k[%b, %h, %row] : tensor<2x2x100x64xf16> -> tensor<32x64xf16>
  return %t : tensor<32x64xf16>
}

// -----

// qk: Σ_d q·k in f32 from f16 operands, then × scale.
// CHECK-LABEL: func.func @qk
// CHECK: %[[DOT:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%{{.+}}, %{{.+}} : tensor<16x64xf16>, tensor<32x64xf16>) outs(%{{.+}} : tensor<16x32xf32>)
// CHECK: arith.extf
// CHECK: linalg.generic {{.*}} ins(%[[DOT]] : tensor<16x32xf32>)
// CHECK: %[[SCALE:.+]] = arith.constant 1.250000e-01 : f32
// CHECK: arith.mulf %{{.+}}, %[[SCALE]] : f32
func.func @qk(%q: tensor<16x64xf16>, %k: tensor<32x64xf16>) -> tensor<16x32xf32> {
  %s = flash.qk %q, %k {scale = 0.125 : f32} : tensor<16x64xf16>, tensor<32x64xf16> -> tensor<16x32xf32>
  return %s : tensor<16x32xf32>
}

// -----

// mask: -inf where key >= kv_len or key > row + causal_offset.
// CHECK-LABEL: func.func @mask
// CHECK-SAME: (%[[S:.+]]: tensor<16x32xf32>, %[[Q0:.+]]: index, %[[K0:.+]]: index)
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<16x32xf32>)
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[KEY:.+]] = arith.addi %[[K0]], %[[J]] : index
// CHECK: %[[PAST:.+]] = arith.cmpi sge, %[[KEY]], %{{.+}} : index
// CHECK: %[[ROW:.+]] = arith.addi %[[Q0]], %[[I]] : index
// CHECK: %[[DIAG:.+]] = arith.addi %[[ROW]], %{{.+}} : index
// CHECK: %[[ABOVE:.+]] = arith.cmpi sgt, %[[KEY]], %[[DIAG]] : index
// CHECK: %[[MASKED:.+]] = arith.ori %[[PAST]], %[[ABOVE]] : i1
// CHECK: arith.select %[[MASKED]], %{{.+}}, %{{.+}} : f32
func.func @mask(%s: tensor<16x32xf32>, %q0: index, %k0: index) -> tensor<16x32xf32> {
  %m = flash.mask %s[%q0, %k0] {kv_len = 100 : i64, causal_offset = -7 : i64} : tensor<16x32xf32>
  return %m : tensor<16x32xf32>
}

// -----

// online_softmax: m' = max(m, rowmax S) (reduction seeded with m),
// shift = m' or 0 where m' = -inf, P = exp(S - shift), α = exp(m - shift),
// l' = α·l + rowsum P.
// CHECK-LABEL: func.func @online_softmax
// CHECK-SAME: (%[[S:.+]]: tensor<16x32xf32>, %[[M:.+]]: tensor<16xf32>, %[[L:.+]]: tensor<16xf32>)
// CHECK: %[[NEWMAX:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[S]] : tensor<16x32xf32>) outs(%[[M]] : tensor<16xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SHIFT:.+]] = linalg.generic {{.*}} ins(%[[NEWMAX]] : tensor<16xf32>)
// CHECK: arith.cmpf oeq
// CHECK: %[[P:.+]] = linalg.generic {{.*}} ins(%[[S]], %[[SHIFT]] : tensor<16x32xf32>, tensor<16xf32>)
// CHECK: math.exp
// CHECK: %[[ALPHA:.+]] = linalg.generic {{.*}} ins(%[[M]], %[[SHIFT]] : tensor<16xf32>, tensor<16xf32>)
// CHECK: math.exp
// CHECK: %[[SCALED:.+]] = linalg.generic {{.*}} ins(%[[ALPHA]], %[[L]] : tensor<16xf32>, tensor<16xf32>)
// CHECK: %[[NEWSUM:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[P]] : tensor<16x32xf32>) outs(%[[SCALED]] : tensor<16xf32>)
// CHECK: return %[[P]], %[[NEWMAX]], %[[NEWSUM]], %[[ALPHA]]
func.func @online_softmax(%s: tensor<16x32xf32>, %m: tensor<16xf32>, %l: tensor<16xf32>) -> (tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %p, %m1, %l1, %a = flash.online_softmax %s, %m, %l
      : tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  return %p, %m1, %l1, %a : tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// accumulate_pv: α·acc, then += round_bf16(P)·V in f32.
// CHECK-LABEL: func.func @accumulate_pv
// CHECK-SAME: (%[[ACC:.+]]: tensor<16x64xf32>, %[[A:.+]]: tensor<16xf32>, %[[P:.+]]: tensor<16x32xf32>, %[[V:.+]]: tensor<32x64xbf16>)
// CHECK: %[[SCALED:.+]] = linalg.generic {{.*}} ins(%[[ACC]], %[[A]] : tensor<16x64xf32>, tensor<16xf32>)
// CHECK: %[[R:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[P]], %[[V]] : tensor<16x32xf32>, tensor<32x64xbf16>) outs(%[[SCALED]] : tensor<16x64xf32>)
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK: arith.extf %{{.+}} : bf16 to f32
// CHECK: return %[[R]]
func.func @accumulate_pv(%acc: tensor<16x64xf32>, %a: tensor<16xf32>, %p: tensor<16x32xf32>, %v: tensor<32x64xbf16>) -> tensor<16x64xf32> {
  %r = flash.accumulate_pv %acc, %a, %p, %v : tensor<16x64xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<32x64xbf16>
  return %r : tensor<16x64xf32>
}

// -----

// finalize: acc / l (0 where l = 0) in the output type; m + log l (-inf where l = 0).
// CHECK-LABEL: func.func @finalize
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<16x64xf16>)
// CHECK: arith.cmpf oeq
// CHECK: arith.divf
// CHECK: arith.select
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<16xf32>)
// CHECK: math.log
// CHECK: arith.select
func.func @finalize(%acc: tensor<16x64xf32>, %m: tensor<16xf32>, %l: tensor<16xf32>) -> (tensor<16x64xf16>, tensor<16xf32>) {
  %o, %lse = flash.finalize %acc, %m, %l : tensor<16x64xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16x64xf16>, tensor<16xf32>
  return %o, %lse : tensor<16x64xf16>, tensor<16xf32>
}

// -----

// The backward's tile ops.

// load_tile of row statistics (LSE, D): B×H×N -> R values, zero-padded.
// CHECK-LABEL: func.func @load_row_stats
// CHECK-SAME: (%[[LSE:.+]]: tensor<2x8x100xf32>, %[[B:.+]]: index, %[[H:.+]]: index, %[[ROW:.+]]: index)
// CHECK: %[[START:.+]] = arith.minsi %[[ROW]], %{{.+}} : index
// CHECK: %[[VALID:.+]] = arith.minsi %{{.+}}, %{{.+}} : index
// CHECK: %[[SLICE:.+]] = tensor.extract_slice %[[LSE]][%[[B]], %[[H]], %[[START]]] [1, 1, %[[VALID]]] [1, 1, 1] : tensor<2x8x100xf32> to tensor<?xf32>
// CHECK: %[[PAD:.+]] = tensor.pad %[[SLICE]] low[0] high[%{{.+}}]
// CHECK: return %[[PAD]] : tensor<32xf32>
func.func @load_row_stats(%lse: tensor<2x8x100xf32>, %b: index, %h: index, %row: index) -> tensor<32xf32> {
  %t = flash.load_tile %lse[%b, %h, %row] : tensor<2x8x100xf32> -> tensor<32xf32>
  return %t : tensor<32xf32>
}

// -----

// row_dot: D_i = Σ_d dO·O of widened operands, a row reduction from 0.
// CHECK-LABEL: func.func @row_dot
// CHECK: %[[ZERO:.+]] = linalg.fill {{.*}} -> tensor<16xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%{{.+}}, %{{.+}} : tensor<16x8xbf16>, tensor<16x8xbf16>) outs(%[[ZERO]] : tensor<16xf32>)
// CHECK: arith.extf
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @row_dot(%do: tensor<16x8xbf16>, %o: tensor<16x8xbf16>) -> tensor<16xf32> {
  %d = flash.row_dot %do, %o : tensor<16x8xbf16>, tensor<16x8xbf16> -> tensor<16xf32>
  return %d : tensor<16xf32>
}

// -----

// recompute_probs: exp(S - lse), 0 (not NaN) where lse = -inf.
// CHECK-LABEL: func.func @recompute_probs
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<16x32xf32>, tensor<16xf32>)
// CHECK: ^bb0(%[[S:.+]]: f32, %[[L:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[EMPTY:.+]] = arith.cmpf oeq, %[[L]], %[[NINF]] : f32
// CHECK: %[[DIFF:.+]] = arith.subf %[[S]], %[[L]] : f32
// CHECK: %[[EXP:.+]] = math.exp %[[DIFF]] : f32
// CHECK: arith.select %[[EMPTY]], %{{.+}}, %[[EXP]] : f32
func.func @recompute_probs(%s: tensor<16x32xf32>, %lse: tensor<16xf32>) -> tensor<16x32xf32> {
  %p = flash.recompute_probs %s, %lse : tensor<16x32xf32>, tensor<16xf32>
  return %p : tensor<16x32xf32>
}

// -----

// score_grad: P · (dP - D).
// CHECK-LABEL: func.func @score_grad
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<16x32xf32>, tensor<16x32xf32>, tensor<16xf32>)
// CHECK: ^bb0(%[[P:.+]]: f32, %[[DP:.+]]: f32, %[[D:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[C:.+]] = arith.subf %[[DP]], %[[D]] : f32
// CHECK: arith.mulf %[[P]], %[[C]] : f32
func.func @score_grad(%p: tensor<16x32xf32>, %dp: tensor<16x32xf32>, %d: tensor<16xf32>) -> tensor<16x32xf32> {
  %ds = flash.score_grad %p, %dp, %d : tensor<16x32xf32>, tensor<16xf32>
  return %ds : tensor<16x32xf32>
}

// -----

// accumulate_product {transpose_lhs}: acc[j, d] += round(A[i, j])·B[i, d],
// A rounded to bf16 (B's type) first; the reduction runs over the rows i.
// CHECK-DAG: #[[$AT:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$BT:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-LABEL: func.func @accumulate_transposed
// CHECK-SAME: (%[[ACC:.+]]: tensor<32x8xf32>, %[[A:.+]]: tensor<16x32xf32>, %[[B:.+]]: tensor<16x8xbf16>)
// CHECK: linalg.generic {indexing_maps = [#[[$AT]], #[[$BT]], #{{.+}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<16x32xf32>, tensor<16x8xbf16>) outs(%[[ACC]] : tensor<32x8xf32>)
// CHECK: %[[R:.+]] = arith.truncf %{{.+}} : f32 to bf16
// CHECK: %[[W:.+]] = arith.extf %[[R]] : bf16 to f32
// CHECK: arith.mulf %[[W]], %{{.+}} : f32
// CHECK: arith.addf
func.func @accumulate_transposed(%acc: tensor<32x8xf32>, %a: tensor<16x32xf32>, %b: tensor<16x8xbf16>) -> tensor<32x8xf32> {
  %r = flash.accumulate_product %acc, %a, %b {transpose_lhs} : tensor<32x8xf32>, tensor<16x32xf32>, tensor<16x8xbf16>
  return %r : tensor<32x8xf32>
}

// -----

// accumulate_product: acc[i, d] += round(A[i, j])·B[j, d] (dQ += dS·K).
// CHECK-LABEL: func.func @accumulate
// CHECK-SAME: (%[[ACC:.+]]: tensor<16x8xf32>, %[[A:.+]]: tensor<16x32xf32>, %[[B:.+]]: tensor<32x8xf16>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[A]], %[[B]] : tensor<16x32xf32>, tensor<32x8xf16>) outs(%[[ACC]] : tensor<16x8xf32>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @accumulate(%acc: tensor<16x8xf32>, %a: tensor<16x32xf32>, %b: tensor<32x8xf16>) -> tensor<16x8xf32> {
  %r = flash.accumulate_product %acc, %a, %b : tensor<16x8xf32>, tensor<16x32xf32>, tensor<32x8xf16>
  return %r : tensor<16x8xf32>
}

// -----

// finalize_grad: T(scale · acc).
// CHECK-LABEL: func.func @finalize_grad
// CHECK: linalg.generic {{.*}} ins(%{{.+}} : tensor<16x8xf32>) outs(%{{.+}} : tensor<16x8xbf16>)
// CHECK: %[[SCALE:.+]] = arith.constant 1.250000e-01 : f32
// CHECK: %[[X:.+]] = arith.mulf %{{.+}}, %[[SCALE]] : f32
// CHECK: arith.truncf %[[X]] : f32 to bf16
func.func @finalize_grad(%acc: tensor<16x8xf32>) -> tensor<16x8xbf16> {
  %r = flash.finalize_grad %acc {scale = 0.125 : f32} : tensor<16x8xf32> -> tensor<16x8xbf16>
  return %r : tensor<16x8xbf16>
}
