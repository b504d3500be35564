// RUN: flash-opt %s --flash-decompose --split-input-file | FileCheck %s
// RUN: flash-opt %s --flash-decompose --split-input-file | FileCheck %s --check-prefix=NOFLASH

// flash-decompose of the split-KV L1 ops (AttentionMath builders).
// NOFLASH-NOT: flash.

// load_paged_tile: key t = k0 + j is valid when 0 <= t < min(len, M·S = 36);
// only then is its table entry read as a page (clamped into [0, P - 1]);
// an invalid key reads page 0, slot 0 and is selected to 0, never used.
// CHECK-LABEL: func.func @load_paged_tile
// CHECK-SAME: (%[[KC:.+]]: tensor<40x3x2x16xf16>, %[[BT:.+]]: tensor<2x12xi32>, %[[B:.+]]: index, %[[H:.+]]: index, %[[K0:.+]]: index, %[[LEN:.+]]: index)
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<4x16xf16>)
// CHECK: %[[J:.+]] = linalg.index 0 : index
// CHECK: %[[D:.+]] = linalg.index 1 : index
// CHECK: %[[KEY:.+]] = arith.addi %[[K0]], %[[J]] : index
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f16
// CHECK: %[[C36:.+]] = arith.constant 36 : index
// CHECK: %[[END:.+]] = arith.minsi %[[LEN]], %[[C36]] : index
// CHECK: %[[BELOW:.+]] = arith.cmpi slt, %[[KEY]], %[[END]] : index
// CHECK: %[[NONNEG:.+]] = arith.cmpi sge, %[[KEY]], %{{.+}} : index
// CHECK: %[[VALID:.+]] = arith.andi %[[NONNEG]], %[[BELOW]] : i1
// CHECK: %[[SAFE:.+]] = arith.select %[[VALID]], %[[KEY]], %{{.+}} : index
// CHECK: %[[COL:.+]] = arith.divsi %[[SAFE]], %{{.+}} : index
// CHECK: %[[SLOT:.+]] = arith.remsi %[[SAFE]], %{{.+}} : index
// CHECK: %[[ENTRY:.+]] = tensor.extract %[[BT]][%[[B]], %[[COL]]] : tensor<2x12xi32>
// CHECK: %[[PAGE0:.+]] = arith.index_cast %[[ENTRY]] : i32 to index
// CHECK: %[[C39:.+]] = arith.constant 39 : index
// CHECK: %[[PAGE1:.+]] = arith.maxsi %[[PAGE0]], %{{.+}} : index
// CHECK: %[[PAGE2:.+]] = arith.minsi %[[PAGE1]], %[[C39]] : index
// CHECK: %[[PAGE:.+]] = arith.select %[[VALID]], %[[PAGE2]], %{{.+}} : index
// CHECK: %[[X:.+]] = tensor.extract %[[KC]][%[[PAGE]], %[[SLOT]], %[[H]], %[[D]]] : tensor<40x3x2x16xf16>
// CHECK: %[[R:.+]] = arith.select %[[VALID]], %[[X]], %[[ZERO]] : f16
// CHECK: linalg.yield %[[R]] : f16
func.func @load_paged_tile(%kc: tensor<40x3x2x16xf16>, %bt: tensor<2x12xi32>, %b: index, %h: index, %k0: index, %len: index) -> tensor<4x16xf16> {
  %t = flash.load_paged_tile %kc, %bt[%b, %h, %k0], %len : tensor<40x3x2x16xf16>, tensor<2x12xi32> -> tensor<4x16xf16>
  return %t : tensor<4x16xf16>
}

// -----

// mask with run-time bounds and packed rows: -inf where key >= len or key >
// ((q0 + i) mod 2) + off.
// CHECK-LABEL: func.func @mask_packed
// CHECK-SAME: (%[[S:.+]]: tensor<16x32xf32>, %[[Q0:.+]]: index, %[[K0:.+]]: index, %[[LEN:.+]]: index, %[[OFF:.+]]: index)
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[KEY:.+]] = arith.addi %[[K0]], %[[J]] : index
// CHECK: %[[PAST:.+]] = arith.cmpi sge, %[[KEY]], %[[LEN]] : index
// CHECK: %[[ROW:.+]] = arith.addi %[[Q0]], %[[I]] : index
// CHECK: %[[C2:.+]] = arith.constant 2 : index
// CHECK: %[[QUERY:.+]] = arith.remsi %[[ROW]], %[[C2]] : index
// CHECK: %[[DIAG:.+]] = arith.addi %[[QUERY]], %[[OFF]] : index
// CHECK: %[[ABOVE:.+]] = arith.cmpi sgt, %[[KEY]], %[[DIAG]] : index
// CHECK: %[[MASKED:.+]] = arith.ori %[[PAST]], %[[ABOVE]] : i1
// CHECK: arith.select %[[MASKED]], %{{.+}}, %{{.+}} : f32
func.func @mask_packed(%s: tensor<16x32xf32>, %q0: index, %k0: index, %len: index, %off: index) -> tensor<16x32xf32> {
  %m = flash.mask %s[%q0, %k0] kv_len(%len) causal_offset(%off) {rows_per_head = 2 : i64} : tensor<16x32xf32>
  return %m : tensor<16x32xf32>
}

// -----

// merge_splits: the splits' LSE as rows × splits, -inf past the count; m =
// rowmax; w = exp(lse - m) (shift 0 where m = -inf); O = Σ w·o / Σ w with
// a weight of 0 selected away (never multiplied); LSE = m + log Σ w.
// CHECK-LABEL: func.func @merge
// CHECK-SAME: (%[[PO:.+]]: tensor<5x4x8xf32>, %[[PL:.+]]: tensor<5x4xf32>, %[[N:.+]]: index)
// CHECK: %[[LSES:.+]] = linalg.generic {{.*}} ins(%[[PL]] : tensor<5x4xf32>) outs(%{{.+}} : tensor<4x5xf32>)
// CHECK: %[[SPLIT:.+]] = linalg.index 1 : index
// CHECK: %[[USED:.+]] = arith.cmpi slt, %[[SPLIT]], %[[N]] : index
// CHECK: arith.select %[[USED]], %{{.+}}, %{{.+}} : f32
// CHECK: %[[M:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[LSES]] : tensor<4x5xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SHIFT:.+]] = linalg.generic {{.*}} ins(%[[M]] : tensor<4xf32>)
// CHECK: %[[W:.+]] = linalg.generic {{.*}} ins(%[[LSES]], %[[SHIFT]] : tensor<4x5xf32>, tensor<4xf32>)
// CHECK: math.exp
// CHECK: %[[L:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[W]] : tensor<4x5xf32>)
// CHECK: %[[ACC:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[W]], %[[PO]] : tensor<4x5xf32>, tensor<5x4x8xf32>) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK: ^bb0(%[[WS:.+]]: f32, %[[OS:.+]]: f32, %[[SUM:.+]]: f32):
// CHECK: %[[UNUSED:.+]] = arith.cmpf oeq, %[[WS]], %{{.+}} : f32
// CHECK: %[[TERM:.+]] = arith.mulf %[[WS]], %[[OS]] : f32
// CHECK: %[[SAFE:.+]] = arith.select %[[UNUSED]], %{{.+}}, %[[TERM]] : f32
// CHECK: arith.addf %[[SUM]], %[[SAFE]] : f32
// CHECK: %[[O:.+]] = linalg.generic {{.*}} ins(%[[ACC]], %[[L]] : tensor<4x8xf32>, tensor<4xf32>) outs(%{{.+}} : tensor<4x8xbf16>)
// CHECK: arith.divf
// CHECK: arith.truncf
// CHECK: %[[LSE:.+]] = linalg.generic {{.*}} ins(%[[M]], %[[L]] : tensor<4xf32>, tensor<4xf32>)
// CHECK: math.log
// CHECK: return %[[O]], %[[LSE]]
func.func @merge(%po: tensor<5x4x8xf32>, %pl: tensor<5x4xf32>, %n: index) -> (tensor<4x8xbf16>, tensor<4xf32>) {
  %o, %l = flash.merge_splits %po, %pl, %n : tensor<5x4x8xf32>, tensor<5x4xf32> -> tensor<4x8xbf16>, tensor<4xf32>
  return %o, %l : tensor<4x8xbf16>, tensor<4xf32>
}
