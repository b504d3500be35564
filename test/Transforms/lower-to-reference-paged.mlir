// RUN: flash-opt %s --flash-lower-to-reference | FileCheck %s

// The reference lowering of flash.paged_attention: K and V gathered through
// the block table at run time into B×Hkv×(M·S)×D (M·S = 4·3 = 12 keys per
// sequence), zero past each sequence's length, then the definition as for
// flash.attention with the scores masked by each sequence's length and its
// causal diagonal t > i + len - Nq.

// CHECK-LABEL: func.func @paged
// CHECK-SAME: (%[[Q:.+]]: tensor<2x4x2x16xf32>, %[[KC:.+]]: tensor<9x3x2x16xf32>, %[[VC:.+]]: tensor<9x3x2x8xf32>, %[[BT:.+]]: tensor<2x4xi32>, %[[SL:.+]]: tensor<2xi32>)
// CHECK-NOT: flash.paged_attention
// CHECK: %[[Q5:.+]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 2, 16]
// The gather: key t = index 2 of sequence b = index 0; its length clamped to
// [0, 12]; the table read at column t / 3 only for a valid key (else column
// 0, and the element is selected to 0); a page clamped into [0, 8].
// CHECK: %[[KG:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<2x2x12x16xf32>)
// CHECK: %[[B:.+]] = linalg.index 0 : index
// CHECK: %[[T:.+]] = linalg.index 2 : index
// CHECK: %[[RAW:.+]] = tensor.extract %[[SL]][%[[B]]] : tensor<2xi32>
// CHECK: arith.minsi %{{.+}}, %{{.+}} : index
// CHECK: %[[VALID:.+]] = arith.andi
// CHECK: %[[SAFE:.+]] = arith.select %[[VALID]], %[[T]], %{{.+}} : index
// CHECK: %[[COL:.+]] = arith.divsi %[[SAFE]], %{{.+}} : index
// CHECK: tensor.extract %[[BT]][%[[B]], %[[COL]]] : tensor<2x4xi32>
// CHECK: %[[X:.+]] = tensor.extract %[[KC]][{{.+}}] : tensor<9x3x2x16xf32>
// CHECK: arith.select %[[VALID]], %[[X]], %{{.+}} : f32
// CHECK: %[[K5:.+]] = linalg.broadcast ins(%[[KG]] : tensor<2x2x12x16xf32>) outs(%{{.+}} : tensor<2x2x2x12x16xf32>) dimensions = [2]
// CHECK: %[[VG:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<2x2x12x8xf32>)
// CHECK: tensor.extract %[[VC]]
// CHECK: %[[V5:.+]] = linalg.broadcast ins(%[[VG]] : tensor<2x2x12x8xf32>) outs(%{{.+}} : tensor<2x2x2x12x8xf32>) dimensions = [2]
// CHECK: %[[DOT:.+]] = linalg.generic {{.*}} ins(%[[Q5]], %[[K5]] : {{.*}}) outs(%{{.+}} : tensor<2x2x2x2x12xf32>)
// CHECK: %[[S:.+]] = linalg.generic {{.*}} ins(%[[DOT]] : tensor<2x2x2x2x12xf32>)
// The mask: key >= len_b, or key > i + len_b - 2.
// CHECK: %[[MASKED:.+]] = linalg.generic {{.*}} ins(%[[S]] : tensor<2x2x2x2x12xf32>)
// CHECK: %[[I:.+]] = linalg.index 3 : index
// CHECK: %[[J:.+]] = linalg.index 4 : index
// CHECK: %[[MB:.+]] = linalg.index 0 : index
// CHECK: tensor.extract %[[SL]][%[[MB]]] : tensor<2xi32>
// CHECK: %[[PAST:.+]] = arith.cmpi sge
// CHECK: %[[C2:.+]] = arith.constant 2 : index
// CHECK: %[[OFF:.+]] = arith.subi %{{.+}}, %[[C2]] : index
// CHECK: %[[DIAG:.+]] = arith.addi %{{.+}}, %[[OFF]] : index
// CHECK: %[[ABOVE:.+]] = arith.cmpi sgt, %{{.+}}, %[[DIAG]] : index
// CHECK: arith.ori %[[PAST]], %[[ABOVE]] : i1
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}} ins(%[[MASKED]] : tensor<2x2x2x2x12xf32>)
// CHECK: %[[ACC:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[V5]] : tensor<2x2x2x2x12xf32>, tensor<2x2x2x12x8xf32>)
// CHECK: %[[O:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x2x2x8xf32> into tensor<2x4x2x8xf32>
// CHECK: %[[LSE:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0], [1, 2], [3]] : tensor<2x2x2x2xf32> into tensor<2x4x2xf32>
// CHECK: return %[[O]], %[[LSE]]
func.func @paged(%q: tensor<2x4x2x16xf32>, %kc: tensor<9x3x2x16xf32>, %vc: tensor<9x3x2x8xf32>, %bt: tensor<2x4xi32>, %sl: tensor<2xi32>) -> (tensor<2x4x2x8xf32>, tensor<2x4x2xf32>) {
  %o, %l = flash.paged_attention %q, %kc, %vc, %bt, %sl {causal} : tensor<2x4x2x16xf32>, tensor<9x3x2x16xf32>, tensor<9x3x2x8xf32>, tensor<2x4xi32>, tensor<2xi32> -> tensor<2x4x2x8xf32>, tensor<2x4x2xf32>
  return %o, %l : tensor<2x4x2x8xf32>, tensor<2x4x2xf32>
}
