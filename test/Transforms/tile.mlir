// RUN: flash-opt %s --flash-tile --split-input-file | FileCheck %s
// RUN: flash-opt %s --flash-tile --split-input-file | FileCheck %s --check-prefix=NOSCORES
// RUN: flash-opt %s --flash-tile --flash-decompose --split-input-file | FileCheck %s --check-prefix=NOSCORES

// flash-tile: the FlashAttention loops. A parallel loop over (batch, q-head,
// Q tile), a K/V loop split into unmasked tiles and masked tiles, carrying
// (m, l, acc); finalize; write back the valid rows.

// No Nq×Nk (1000×1000) tensor exists after tiling, nor after decomposition:
// every value inside the loops is tile sized.
// NOSCORES-NOT: 1000x1000

// CHECK-LABEL: func.func @gqa_n1000
// CHECK-SAME: (%[[Q:.+]]: tensor<2x8x1000x64xf32>, %[[K:.+]]: tensor<2x2x1000x64xf32>, %[[V:.+]]: tensor<2x2x1000x64xf32>)
// CHECK: %[[OUT:.+]] = tensor.empty() : tensor<2x8x1000x64xf32>
// 1000 rows in tiles of 64: 16 Q tiles.
// CHECK: %[[RES:.+]] = scf.forall (%[[B:.+]], %[[H:.+]], %[[T:.+]]) in (2, 8, 16) shared_outs(%[[O:.+]] = %[[OUT]])
// CHECK: %[[Q0:.+]] = arith.muli %[[T]], %{{.+}} : index
// GQA 8/2: kv-head = h / 4, no copy of K or V.
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK: %[[KVH:.+]] = arith.divsi %[[H]], %[[C4]] : index
// CHECK: %[[QT:.+]] = flash.load_tile %[[Q]][%[[B]], %[[H]], %[[Q0]]] : tensor<2x8x1000x64xf32> -> tensor<64x64xf32>
// Non-causal: 1000 / 128 = 7 full tiles run without a mask, then up to
// ceil(1000 / 128) = 8. The running max starts at -inf.
// CHECK-DAG: %[[C7:.+]] = arith.constant 7 : index
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG: arith.constant 0xFF800000 : f32
// CHECK: %[[FULL:.+]]:3 = scf.for %[[J:.+]] = %{{.+}} to %[[C7]] step %{{.+}} iter_args(%[[M:.+]] = %{{.+}}, %[[L:.+]] = %{{.+}}, %[[ACC:.+]] = %{{.+}}) -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>)
// CHECK: %[[K0:.+]] = arith.muli %[[J]], %{{.+}} : index
// CHECK: %[[KT:.+]] = flash.load_tile %[[K]][%[[B]], %[[KVH]], %[[K0]]] : tensor<2x2x1000x64xf32> -> tensor<128x64xf32>
// CHECK: %[[VT:.+]] = flash.load_tile %[[V]][%[[B]], %[[KVH]], %[[K0]]] : tensor<2x2x1000x64xf32> -> tensor<128x64xf32>
// CHECK: %[[S:.+]] = flash.qk %[[QT]], %[[KT]] {scale = 1.250000e-01 : f32} : tensor<64x64xf32>, tensor<128x64xf32> -> tensor<64x128xf32>
// CHECK-NOT: flash.mask
// CHECK: %[[P:.+]], %[[M1:.+]], %[[L1:.+]], %[[ALPHA:.+]] = flash.online_softmax %[[S]], %[[M]], %[[L]]
// CHECK: %[[ACC1:.+]] = flash.accumulate_pv %[[ACC]], %[[ALPHA]], %[[P]], %[[VT]]
// CHECK: scf.yield %[[M1]], %[[L1]], %[[ACC1]]
// The ragged tail tile (rows 896..999) is masked at kv_len = 1000.
// CHECK: %[[TAIL:.+]]:3 = scf.for %{{.+}} = %[[C7]] to %[[C8]] step %{{.+}} iter_args(%{{.+}} = %[[FULL]]#0, %{{.+}} = %[[FULL]]#1, %{{.+}} = %[[FULL]]#2)
// CHECK: flash.qk
// CHECK: flash.mask %{{.+}}[%[[Q0]], %{{.+}}] {kv_len = 1000 : i64} : tensor<64x128xf32>
// CHECK: flash.online_softmax
// CHECK: flash.accumulate_pv
// CHECK: %[[OT:.+]], %{{.+}} = flash.finalize %[[TAIL]]#2, %[[TAIL]]#0, %[[TAIL]]#1 : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<64x64xf32>, tensor<64xf32>
// Only min(64, 1000 - q0) rows are written back.
// CHECK: %[[REM:.+]] = arith.subi %{{.+}}, %[[Q0]] : index
// CHECK: %[[VALID:.+]] = arith.minsi %{{.+}}, %[[REM]] : index
// CHECK: %[[ROWS:.+]] = tensor.extract_slice %[[OT]][0, 0] [%[[VALID]], 64] [1, 1] : tensor<64x64xf32> to tensor<?x64xf32>
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %[[ROWS]] into %[[O]][%[[B]], %[[H]], %[[Q0]], 0] [1, 1, %[[VALID]], 64] [1, 1, 1, 1]
// The typed descriptor of the kernel this loop nest is: what it computes (the
// op's shapes, flags and effective scale) and its schedule, no form yet.
// CHECK: flash.kernel = #flash.kernel<kind = forward, element_type = f32, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = <arch = "sm_80", block_q = 64, block_kv = 128, stages = 2, warps = 4>>
// CHECK: return %[[RES]]
func.func @gqa_n1000(%q: tensor<2x8x1000x64xf32>, %k: tensor<2x2x1000x64xf32>, %v: tensor<2x2x1000x64xf32>) -> tensor<2x8x1000x64xf32> {
  %o = flash.attention %q, %k, %v {scale = 0.125 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 128, stages = 2, warps = 4>}
      : tensor<2x8x1000x64xf32>, tensor<2x2x1000x64xf32>, tensor<2x2x1000x64xf32> -> tensor<2x8x1000x64xf32>
  return %o : tensor<2x8x1000x64xf32>
}

// -----

// Causal with Nq = 100 < Nk = 300: the diagonal is aligned bottom-right
// (offset Nk - Nq = 200). The Q tile at q0 visits K/V tiles up to the key its
// last row sees, ceil(min(q0 + 32, 100) + 200, 64), and only tiles that every
// row sees in full, (q0 + 201) / 64 of them, run unmasked.
// CHECK-LABEL: func.func @causal_nq_lt_nk
// CHECK: scf.forall (%{{.+}}, %{{.+}}, %[[T:.+]]) in (1, 2, 4) shared_outs(%[[O:.+]] = %{{.+}}, %[[LSEOUT:.+]] = %{{.+}})
// CHECK: %[[Q0:.+]] = arith.muli %[[T]], %{{.+}} : index
// The visible-range model (VisibleKV.h): what does not depend on q0 folds.
// CHECK: %[[C200:.+]] = arith.constant 200 : index
// CHECK: %[[ROWSEND:.+]] = arith.minsi %{{.+}}, %{{.+}} : index
// CHECK: %[[SEEN:.+]] = arith.addi %[[ROWSEND]], %[[C200]] : index
// CHECK: %[[CLAMP0:.+]] = arith.maxsi %[[SEEN]], %{{.+}} : index
// CHECK: %[[KVEND:.+]] = arith.minsi %[[CLAMP0]], %{{.+}} : index
// CHECK: %[[C63:.+]] = arith.constant 63 : index
// CHECK: %[[ROUNDUP:.+]] = arith.addi %[[KVEND]], %[[C63]] : index
// CHECK: %[[NUMKV:.+]] = arith.divsi %[[ROUNDUP]], %{{.+}} : index
// CHECK: %[[DIAG:.+]] = arith.addi %[[Q0]], %[[C200]] : index
// CHECK: %[[FIRSTROW:.+]] = arith.addi %[[DIAG]], %{{.+}} : index
// CHECK: %[[NONNEG:.+]] = arith.maxsi %[[FIRSTROW]], %{{.+}} : index
// CHECK: %[[FULLCAUSAL:.+]] = arith.divsi %[[NONNEG]], %{{.+}} : index
// CHECK: %[[FULLSEQ:.+]] = arith.minsi %[[FULLCAUSAL]], %{{.+}} : index
// CHECK: %[[UNMASKED:.+]] = arith.minsi %[[FULLSEQ]], %[[NUMKV]] : index
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[UNMASKED]]
// CHECK-NOT: flash.mask
// CHECK: scf.yield
// CHECK: scf.for %{{.+}} = %[[UNMASKED]] to %[[NUMKV]]
// CHECK: flash.mask %{{.+}}[%[[Q0]], %{{.+}}] {causal_offset = 200 : i64, kv_len = 300 : i64} : tensor<32x64xf32>
// CHECK: %{{.+}}, %[[LSE:.+]] = flash.finalize
// LSE rows are written next to the output rows.
// CHECK: %[[LSEROWS:.+]] = tensor.extract_slice %[[LSE]][0] [%{{.+}}] [1] : tensor<32xf32> to tensor<?xf32>
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %{{.+}} into %[[O]]
// CHECK: tensor.parallel_insert_slice %[[LSEROWS]] into %[[LSEOUT]][%{{.+}}, %{{.+}}, %[[Q0]]] [1, 1, %{{.+}}] [1, 1, 1]
func.func @causal_nq_lt_nk(%q: tensor<1x2x100x16xbf16>, %k: tensor<1x2x300x16xbf16>, %v: tensor<1x2x300x16xbf16>) -> (tensor<1x2x100x16xbf16>, tensor<1x2x100xf32>) {
  %o, %l = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_80", block_q = 32, block_kv = 64, stages = 2, warps = 2>}
      : tensor<1x2x100x16xbf16>, tensor<1x2x300x16xbf16>, tensor<1x2x300x16xbf16> -> tensor<1x2x100x16xbf16>, tensor<1x2x100xf32>
  return %o, %l : tensor<1x2x100x16xbf16>, tensor<1x2x100xf32>
}

// -----

// Causal with Nq = 300 > Nk = 100: offset -200, so the first 200 query rows
// see no key at all (their K/V range is empty and finalize yields 0, -inf).
// CHECK-LABEL: func.func @causal_nq_gt_nk
// CHECK: %[[CM200:.+]] = arith.constant -200 : index
// CHECK: arith.addi %{{.+}}, %[[CM200]] : index
// CHECK: flash.mask %{{.+}} {causal_offset = -200 : i64, kv_len = 100 : i64}
func.func @causal_nq_gt_nk(%q: tensor<1x1x300x16xf16>, %k: tensor<1x1x100x16xf16>, %v: tensor<1x1x100x16xf16>) -> tensor<1x1x300x16xf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>}
      : tensor<1x1x300x16xf16>, tensor<1x1x100x16xf16>, tensor<1x1x100x16xf16> -> tensor<1x1x300x16xf16>
  return %o : tensor<1x1x300x16xf16>
}
