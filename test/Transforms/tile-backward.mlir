// RUN: flash-opt %s --flash-tile --split-input-file | FileCheck %s
// RUN: flash-opt %s --flash-tile --split-input-file | FileCheck %s --check-prefix=NOSCORES
// RUN: flash-opt %s --flash-tile --flash-decompose --split-input-file | FileCheck %s --check-prefix=NOSCORES
// The tiled IR, descriptors included, parses and verifies again.
// RUN: flash-opt %s --flash-tile --split-input-file | flash-opt --split-input-file -o /dev/null

// flash-tile on flash.attention_backward: FlashAttention-2's backward as
// three loop nests, the preprocess (D, the zeroed f32 dQ workspace), the
// main loop nest over (batch, kv-head) with the #flash.kernel descriptor,
// and the dQ conversion.

// No Nq×Nk (1000×1000) tensor exists after tiling, nor after decomposition:
// the largest values are a head's rows (1000×64) and tiles.
// NOSCORES-NOT: 1000x1000

// CHECK-LABEL: func.func @gqa_causal
// CHECK-SAME: (%[[Q:.+]]: tensor<2x8x1000x64xbf16>, %[[K:.+]]: tensor<2x2x1000x64xbf16>, %[[V:.+]]: tensor<2x2x1000x64xbf16>, %[[O:.+]]: tensor<2x8x1000x64xbf16>, %[[DO:.+]]: tensor<2x8x1000x64xbf16>, %[[LSE:.+]]: tensor<2x8x1000xf32>)

// Stage 1, per (b, q-head, Q tile of 64 rows): D = rowsum(dO ∘ O) and a zero
// tile of the f32 dQ workspace, valid rows only.
// CHECK: %[[DELTA0:.+]] = tensor.empty() : tensor<2x8x1000xf32>
// CHECK: %[[WS0:.+]] = tensor.empty() : tensor<2x8x1000x64xf32>
// CHECK: %[[PRE:.+]]:2 = scf.forall (%[[PB:.+]], %[[PH:.+]], %[[PT:.+]]) in (2, 8, 16) shared_outs(%[[PD:.+]] = %[[DELTA0]], %[[PW:.+]] = %[[WS0]])
// CHECK: %[[PQ0:.+]] = arith.muli %[[PT]], %{{.+}} : index
// CHECK: %[[OT:.+]] = flash.load_tile %[[O]][%[[PB]], %[[PH]], %[[PQ0]]] : tensor<2x8x1000x64xbf16> -> tensor<64x64xbf16>
// CHECK: %[[DOT:.+]] = flash.load_tile %[[DO]][%[[PB]], %[[PH]], %[[PQ0]]] : tensor<2x8x1000x64xbf16> -> tensor<64x64xbf16>
// CHECK: %[[D:.+]] = flash.row_dot %[[DOT]], %[[OT]] : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64xf32>
// CHECK: %[[ZERO:.+]] = linalg.fill {{.*}} -> tensor<64x64xf32>
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %{{.+}} into %[[PD]][%[[PB]], %[[PH]], %[[PQ0]]] [1, 1, %{{.+}}] [1, 1, 1]
// CHECK: tensor.parallel_insert_slice %{{.+}} into %[[PW]][%[[PB]], %[[PH]], %[[PQ0]], 0] [1, 1, %{{.+}}, 64] [1, 1, 1, 1]
// CHECK: } {flash.stage = "preprocess"}

// Stage 2, per (b, kv-head): dK, dV and the workspace rows of the kv-head's
// four q-heads (GQA 8/2) are the shared outputs.
// CHECK: %[[DK0:.+]] = tensor.empty() : tensor<2x2x1000x64xbf16>
// CHECK: %[[DV0:.+]] = tensor.empty() : tensor<2x2x1000x64xbf16>
// CHECK: %[[MAIN:.+]]:3 = scf.forall (%[[B:.+]], %[[KVH:.+]]) in (2, 2) shared_outs(%[[SDK:.+]] = %[[DK0]], %[[SDV:.+]] = %[[DV0]], %[[SWS:.+]] = %[[PRE]]#1)
// CHECK: %[[G0:.+]] = arith.muli %[[KVH]], %{{.+}} : index
// CHECK: %[[DKH:.+]] = tensor.extract_slice %[[SDK]][%[[B]], %[[KVH]], 0, 0] [1, 1, 1000, 64]
// CHECK: %[[DVH:.+]] = tensor.extract_slice %[[SDV]][%[[B]], %[[KVH]], 0, 0] [1, 1, 1000, 64]
// CHECK: %[[WSG:.+]] = tensor.extract_slice %[[SWS]][%[[B]], %[[G0]], 0, 0] [1, 4, 1000, 64] [1, 1, 1, 1] : tensor<2x8x1000x64xf32> to tensor<1x4x1000x64xf32>
// The K/V loop: ceil(1000 / 128) = 8 tiles, carrying the group's dQ workspace.
// CHECK: %[[C8:.+]] = arith.constant 8 : index
// CHECK: %[[KVLOOP:.+]]:3 = scf.for %[[J:.+]] = %{{.+}} to %[[C8]] step %{{.+}} iter_args(%[[ADK:.+]] = %[[DKH]], %[[ADV:.+]] = %[[DVH]], %[[AWS:.+]] = %[[WSG]])
// CHECK: %[[K0:.+]] = arith.muli %[[J]], %{{.+}} : index
// CHECK: %[[KT:.+]] = flash.load_tile %[[K]][%[[B]], %[[KVH]], %[[K0]]] : tensor<2x2x1000x64xbf16> -> tensor<128x64xbf16>
// CHECK: %[[VT:.+]] = flash.load_tile %[[V]][%[[B]], %[[KVH]], %[[K0]]] : tensor<2x2x1000x64xbf16> -> tensor<128x64xbf16>
// The Q tiles that see K/V tile j (visibleQTiles, offset Nk - Nq = 0): from
// the tile of row k0 (k0 / 64) to 16; masked up to the first Q tile whose
// first row sees the whole tile, ceil((k0 + 127) / 64), or to 16 for the
// ragged last K/V tile (k0 + 128 > 1000).
// CHECK: %[[C16:.+]] = arith.constant 16 : index
// CHECK: %[[END:.+]] = arith.addi %[[K0]], %{{.+}} : index
// CHECK: %[[PAST:.+]] = arith.subi %[[END]], %{{.+}} : index
// CHECK: %[[PASTPOS:.+]] = arith.maxsi %[[PAST]], %{{.+}} : index
// CHECK: %[[CROSSES:.+]] = arith.minsi %[[PASTPOS]], %{{.+}} : index
// CHECK: %[[RAGGED:.+]] = arith.muli %[[CROSSES]], %[[C16]] : index
// CHECK: %[[FIRSTROW:.+]] = arith.maxsi %[[K0]], %{{.+}} : index
// CHECK: %[[FIRSTT:.+]] = arith.divsi %[[FIRSTROW]], %{{.+}} : index
// CHECK: %[[FIRST:.+]] = arith.minsi %[[FIRSTT]], %[[C16]] : index
// CHECK: %[[C127:.+]] = arith.constant 127 : index
// CHECK: %[[LASTKEY:.+]] = arith.addi %[[K0]], %[[C127]] : index
// CHECK: %[[WHOLE:.+]] = arith.maxsi %[[LASTKEY]], %{{.+}} : index
// CHECK: %[[WHOLEUP:.+]] = arith.addi %[[WHOLE]], %{{.+}} : index
// CHECK: %[[CAUSALU:.+]] = arith.divsi %[[WHOLEUP]], %{{.+}} : index
// CHECK: %[[U1:.+]] = arith.maxsi %[[CAUSALU]], %[[RAGGED]] : index
// CHECK: %[[U2:.+]] = arith.maxsi %[[U1]], %[[FIRST]] : index
// CHECK: %[[UNMASKED:.+]] = arith.minsi %[[U2]], %[[C16]] : index
// f32 dK and dV accumulators of the K/V tile.
// CHECK: %[[DK1:.+]] = linalg.fill {{.*}} -> tensor<128x64xf32>
// CHECK: %[[DV1:.+]] = linalg.fill {{.*}} -> tensor<128x64xf32>
// The group's q-heads, h = kvh·4 + g, add into the same dK and dV.
// CHECK: %[[HEADS:.+]]:3 = scf.for %[[G:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[HDK:.+]] = %[[DK1]], %[[HDV:.+]] = %[[DV1]], %[[HWS:.+]] = %[[AWS]])
// CHECK: %[[HBASE:.+]] = arith.muli %[[KVH]], %{{.+}} : index
// CHECK: %[[H:.+]] = arith.addi %[[HBASE]], %[[G]] : index
// The masked Q tiles (the diagonal band and the ragged tail).
// CHECK: %[[MASKED:.+]]:3 = scf.for %[[T:.+]] = %[[FIRST]] to %[[UNMASKED]] step %{{.+}} iter_args(%[[MDK:.+]] = %[[HDK]], %[[MDV:.+]] = %[[HDV]], %[[MWS:.+]] = %[[HWS]])
// CHECK: %[[Q0:.+]] = arith.muli %[[T]], %{{.+}} : index
// CHECK: %[[QT:.+]] = flash.load_tile %[[Q]][%[[B]], %[[H]], %[[Q0]]] : tensor<2x8x1000x64xbf16> -> tensor<64x64xbf16>
// CHECK: %[[DOTILE:.+]] = flash.load_tile %[[DO]][%[[B]], %[[H]], %[[Q0]]] : tensor<2x8x1000x64xbf16> -> tensor<64x64xbf16>
// CHECK: %[[LSET:.+]] = flash.load_tile %[[LSE]][%[[B]], %[[H]], %[[Q0]]] : tensor<2x8x1000xf32> -> tensor<64xf32>
// CHECK: %[[DT:.+]] = flash.load_tile %[[PRE]]#0[%[[B]], %[[H]], %[[Q0]]] : tensor<2x8x1000xf32> -> tensor<64xf32>
// S = scale·Q·Kᵀ, masked; P = exp(S - LSE).
// CHECK: %[[S:.+]] = flash.qk %[[QT]], %[[KT]] {scale = 1.250000e-01 : f32} : tensor<64x64xbf16>, tensor<128x64xbf16> -> tensor<64x128xf32>
// CHECK: %[[SM:.+]] = flash.mask %[[S]][%[[Q0]], %[[K0]]] {causal_offset = 0 : i64, kv_len = 1000 : i64} : tensor<64x128xf32>
// CHECK: %[[P:.+]] = flash.recompute_probs %[[SM]], %[[LSET]] : tensor<64x128xf32>, tensor<64xf32>
// dV += Pᵀ·dO; dP = dO·Vᵀ; dS = P ∘ (dP − D); dK += dSᵀ·Q.
// CHECK: %[[NDV:.+]] = flash.accumulate_product %[[MDV]], %[[P]], %[[DOTILE]] {transpose_lhs} : tensor<128x64xf32>, tensor<64x128xf32>, tensor<64x64xbf16>
// CHECK: %[[DP:.+]] = flash.qk %[[DOTILE]], %[[VT]] {scale = 1.000000e+00 : f32} : tensor<64x64xbf16>, tensor<128x64xbf16> -> tensor<64x128xf32>
// CHECK: %[[DS:.+]] = flash.score_grad %[[P]], %[[DP]], %[[DT]] : tensor<64x128xf32>, tensor<64xf32>
// CHECK: %[[NDK:.+]] = flash.accumulate_product %[[MDK]], %[[DS]], %[[QT]] {transpose_lhs} : tensor<128x64xf32>, tensor<64x128xf32>, tensor<64x64xbf16>
// dQacc += dS·K on the Q tile's rows of head g's workspace, valid rows only.
// CHECK: %[[DQT:.+]] = flash.load_tile %[[MWS]][%{{.+}}, %[[G]], %[[Q0]]] : tensor<1x4x1000x64xf32> -> tensor<64x64xf32>
// CHECK: %[[NDQ:.+]] = flash.accumulate_product %[[DQT]], %[[DS]], %[[KT]] : tensor<64x64xf32>, tensor<64x128xf32>, tensor<128x64xbf16>
// CHECK: %[[DQROWS:.+]] = tensor.extract_slice %[[NDQ]][0, 0] [%[[VALIDQ:.+]], 64] [1, 1] : tensor<64x64xf32> to tensor<?x64xf32>
// CHECK: %[[NWS:.+]] = tensor.insert_slice %[[DQROWS]] into %[[MWS]][0, %[[G]], %[[Q0]], 0] [1, 1, %[[VALIDQ]], 64] [1, 1, 1, 1]
// CHECK: scf.yield %[[NDK]], %[[NDV]], %[[NWS]]
// The Q tiles that see the whole K/V tile: the same step without flash.mask.
// CHECK: %[[FULL:.+]]:3 = scf.for %{{.+}} = %[[UNMASKED]] to %[[C16]] step %{{.+}} iter_args(%{{.+}} = %[[MASKED]]#0, %{{.+}} = %[[MASKED]]#1, %{{.+}} = %[[MASKED]]#2)
// CHECK: flash.qk
// CHECK-NOT: flash.mask
// CHECK: flash.recompute_probs
// CHECK: scf.yield
// CHECK: scf.yield %[[FULL]]#0, %[[FULL]]#1, %[[FULL]]#2
// dK = scale·dK and dV in bf16, the K/V tile's valid rows written.
// CHECK: %[[DKT:.+]] = flash.finalize_grad %[[HEADS]]#0 {scale = 1.250000e-01 : f32} : tensor<128x64xf32> -> tensor<128x64xbf16>
// CHECK: %[[DVT:.+]] = flash.finalize_grad %[[HEADS]]#1 {scale = 1.000000e+00 : f32} : tensor<128x64xf32> -> tensor<128x64xbf16>
// CHECK: %[[VALIDKV:.+]] = arith.minsi %{{.+}}, %{{.+}} : index
// CHECK: %[[KROWS:.+]] = tensor.extract_slice %[[DKT]][0, 0] [%[[VALIDKV]], 64] [1, 1]
// CHECK: %[[NEXTDK:.+]] = tensor.insert_slice %[[KROWS]] into %[[ADK]][0, 0, %[[K0]], 0] [1, 1, %[[VALIDKV]], 64] [1, 1, 1, 1]
// CHECK: %[[VROWS:.+]] = tensor.extract_slice %[[DVT]][0, 0] [%[[VALIDKV]], 64] [1, 1]
// CHECK: %[[NEXTDV:.+]] = tensor.insert_slice %[[VROWS]] into %[[ADV]][0, 0, %[[K0]], 0] [1, 1, %[[VALIDKV]], 64] [1, 1, 1, 1]
// CHECK: scf.yield %[[NEXTDK]], %[[NEXTDV]], %[[HEADS]]#2
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %[[KVLOOP]]#0 into %[[SDK]][%[[B]], %[[KVH]], 0, 0] [1, 1, 1000, 64]
// CHECK: tensor.parallel_insert_slice %[[KVLOOP]]#1 into %[[SDV]][%[[B]], %[[KVH]], 0, 0] [1, 1, 1000, 64]
// CHECK: tensor.parallel_insert_slice %[[KVLOOP]]#2 into %[[SWS]][%[[B]], %[[G0]], 0, 0] [1, 4, 1000, 64]
// The descriptor a GPU lowering builds the three kernels from.
// CHECK: } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = <arch = "sm_80", block_q = 64, block_kv = 128, stages = 2, warps = 8>>}

// Stage 3: dQ = scale·dQacc in bf16, per (b, q-head, Q tile).
// CHECK: %[[DQ0:.+]] = tensor.empty() : tensor<2x8x1000x64xbf16>
// CHECK: %[[CONV:.+]] = scf.forall (%[[CB:.+]], %[[CH:.+]], %[[CT:.+]]) in (2, 8, 16) shared_outs(%[[SDQ:.+]] = %[[DQ0]])
// CHECK: %[[CQ0:.+]] = arith.muli %[[CT]], %{{.+}} : index
// CHECK: %[[ACC:.+]] = flash.load_tile %[[MAIN]]#2[%[[CB]], %[[CH]], %[[CQ0]]] : tensor<2x8x1000x64xf32> -> tensor<64x64xf32>
// CHECK: flash.finalize_grad %[[ACC]] {scale = 1.250000e-01 : f32} : tensor<64x64xf32> -> tensor<64x64xbf16>
// CHECK: tensor.parallel_insert_slice %{{.+}} into %[[SDQ]][%[[CB]], %[[CH]], %[[CQ0]], 0]
// CHECK: } {flash.stage = "dq_convert"}
// CHECK: return %[[CONV]], %[[MAIN]]#0, %[[MAIN]]#1
func.func @gqa_causal(%q: tensor<2x8x1000x64xbf16>, %k: tensor<2x2x1000x64xbf16>, %v: tensor<2x2x1000x64xbf16>,
                      %o: tensor<2x8x1000x64xbf16>, %do: tensor<2x8x1000x64xbf16>, %lse: tensor<2x8x1000xf32>)
    -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {causal, scale = 0.125 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 128, stages = 2, warps = 8>}
      : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x8x1000x64xbf16>, tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>
      -> tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>
  return %dq, %dk, %dv : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>
}

// -----

// Causal with Nq = 100 < Nk = 300 (offset 200): the first Q tile that sees
// K/V tile j is that of row max(k0 - 200, 0); the first that sees all of it,
// ceil(max(k0 + 63 - 200, 0) / 32); four Q tiles of 32 rows.
// CHECK-LABEL: func.func @causal_nq_lt_nk
// CHECK: scf.forall (%{{.+}}, %{{.+}}) in (1, 2)
// CHECK: scf.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: %[[K0:.+]] = arith.muli %[[J]], %{{.+}} : index
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK: %[[C200:.+]] = arith.constant 200 : index
// CHECK: %[[SHIFTED:.+]] = arith.subi %[[K0]], %[[C200]] : index
// CHECK: %[[FIRSTROW:.+]] = arith.maxsi %[[SHIFTED]], %{{.+}} : index
// CHECK: %[[FT:.+]] = arith.divsi %[[FIRSTROW]], %{{.+}} : index
// CHECK: %[[FIRST:.+]] = arith.minsi %[[FT]], %[[C4]] : index
// CHECK: %[[C63:.+]] = arith.constant 63 : index
// CHECK: %[[LASTKEY:.+]] = arith.addi %[[K0]], %[[C63]] : index
// CHECK: %[[LASTROW:.+]] = arith.subi %[[LASTKEY]], %[[C200]] : index
// CHECK: scf.for %{{.+}} = %[[FIRST]] to %[[UNMASKED:.+]] step
// CHECK: flash.mask %{{.+}} {causal_offset = 200 : i64, kv_len = 300 : i64} : tensor<32x64xf32>
// CHECK: scf.for %{{.+}} = %[[UNMASKED]] to %[[C4]] step
// CHECK-NOT: flash.mask
// CHECK: flash.finalize_grad
// CHECK: kind = backward, element_type = f16, batch = 1, q_heads = 2, kv_heads = 2, seq_q = 100, seq_kv = 300, head_dim = 16, value_dim = 8, causal = true, lse = false, scale = 2.500000e-01 : f32
func.func @causal_nq_lt_nk(%q: tensor<1x2x100x16xf16>, %k: tensor<1x2x300x16xf16>, %v: tensor<1x2x300x8xf16>,
                           %o: tensor<1x2x100x8xf16>, %do: tensor<1x2x100x8xf16>, %lse: tensor<1x2x100xf32>)
    -> (tensor<1x2x100x16xf16>, tensor<1x2x300x16xf16>, tensor<1x2x300x8xf16>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {causal, schedule = #flash.schedule<arch = "sm_80", block_q = 32, block_kv = 64, stages = 2, warps = 8>}
      : tensor<1x2x100x16xf16>, tensor<1x2x300x16xf16>, tensor<1x2x300x8xf16>, tensor<1x2x100x8xf16>, tensor<1x2x100x8xf16>, tensor<1x2x100xf32>
      -> tensor<1x2x100x16xf16>, tensor<1x2x300x16xf16>, tensor<1x2x300x8xf16>
  return %dq, %dk, %dv : tensor<1x2x100x16xf16>, tensor<1x2x300x16xf16>, tensor<1x2x300x8xf16>
}

// -----

// Without causal every Q tile sees every K/V tile (first = 0); only the
// ragged last K/V tile (keys 64..95 of 70) is masked, in every Q tile:
// firstUnmasked = min(max(k0 + 32 - 70, 0), 1) · 4. `deterministic` reaches
// the descriptor.
// CHECK-LABEL: func.func @ragged_deterministic
// CHECK: scf.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: %[[K0:.+]] = arith.muli %[[J]], %{{.+}} : index
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK: %[[END:.+]] = arith.addi %[[K0]], %{{.+}} : index
// CHECK: %[[PAST:.+]] = arith.subi %[[END]], %{{.+}} : index
// CHECK: %[[PASTPOS:.+]] = arith.maxsi %[[PAST]], %{{.+}} : index
// CHECK: %[[CROSSES:.+]] = arith.minsi %[[PASTPOS]], %{{.+}} : index
// CHECK: %[[UNMASKED:.+]] = arith.muli %[[CROSSES]], %[[C4]] : index
// CHECK: %[[ZERO:.+]] = arith.constant 0 : index
// CHECK: scf.for %{{.+}} = %[[ZERO]] to %[[UNMASKED]] step
// CHECK: flash.mask %{{.+}} {kv_len = 70 : i64} : tensor<16x32xf32>
// CHECK: scf.for %{{.+}} = %[[UNMASKED]] to %[[C4]] step
// CHECK-NOT: flash.mask
// CHECK: kind = backward, element_type = f32, batch = 1, q_heads = 1, kv_heads = 1, seq_q = 50, seq_kv = 70, head_dim = 16, value_dim = 16, causal = false, lse = false, scale = 2.500000e-01 : f32, schedule = <arch = "sm_80", block_q = 16, block_kv = 32, stages = 1, warps = 8>, deterministic = true>
func.func @ragged_deterministic(%q: tensor<1x1x50x16xf32>, %k: tensor<1x1x70x16xf32>, %v: tensor<1x1x70x16xf32>,
                                %o: tensor<1x1x50x16xf32>, %do: tensor<1x1x50x16xf32>, %lse: tensor<1x1x50xf32>)
    -> (tensor<1x1x50x16xf32>, tensor<1x1x70x16xf32>, tensor<1x1x70x16xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {deterministic, schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 32, stages = 1, warps = 8>}
      : tensor<1x1x50x16xf32>, tensor<1x1x70x16xf32>, tensor<1x1x70x16xf32>, tensor<1x1x50x16xf32>, tensor<1x1x50x16xf32>, tensor<1x1x50xf32>
      -> tensor<1x1x50x16xf32>, tensor<1x1x70x16xf32>, tensor<1x1x70x16xf32>
  return %dq, %dk, %dv : tensor<1x1x50x16xf32>, tensor<1x1x70x16xf32>, tensor<1x1x70x16xf32>
}

// -----

// No keys: nothing to accumulate; dQ is 0 and dK, dV are empty.
// CHECK-LABEL: func.func @no_keys
// CHECK-NOT: scf.forall
// CHECK: %[[DQ:.+]] = linalg.fill {{.*}} -> tensor<1x2x5x8xf32>
// CHECK: %[[DK:.+]] = linalg.fill {{.*}} -> tensor<1x1x0x8xf32>
// CHECK: %[[DV:.+]] = linalg.fill {{.*}} -> tensor<1x1x0x8xf32>
// CHECK: return %[[DQ]], %[[DK]], %[[DV]]
func.func @no_keys(%q: tensor<1x2x5x8xf32>, %k: tensor<1x1x0x8xf32>, %v: tensor<1x1x0x8xf32>,
                   %o: tensor<1x2x5x8xf32>, %do: tensor<1x2x5x8xf32>, %lse: tensor<1x2x5xf32>)
    -> (tensor<1x2x5x8xf32>, tensor<1x1x0x8xf32>, tensor<1x1x0x8xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {causal, schedule = #flash.schedule<arch = "sm_80", block_q = 4, block_kv = 4, stages = 1, warps = 8>}
      : tensor<1x2x5x8xf32>, tensor<1x1x0x8xf32>, tensor<1x1x0x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5xf32>
      -> tensor<1x2x5x8xf32>, tensor<1x1x0x8xf32>, tensor<1x1x0x8xf32>
  return %dq, %dk, %dv : tensor<1x2x5x8xf32>, tensor<1x1x0x8xf32>, tensor<1x1x0x8xf32>
}

// -----

// No batch: nothing to compute, and no loop nest whose descriptor would have
// a batch of 0 (which #flash.kernel's verifier refuses).
// CHECK-LABEL: func.func @no_batch
// CHECK-NOT: scf.forall
// CHECK-NOT: flash.kernel
// CHECK: return
func.func @no_batch(%q: tensor<0x2x10x8xf32>, %k: tensor<0x1x13x8xf32>, %v: tensor<0x1x13x4xf32>,
                    %o: tensor<0x2x10x4xf32>, %do: tensor<0x2x10x4xf32>, %lse: tensor<0x2x10xf32>)
    -> (tensor<0x2x10x8xf32>, tensor<0x1x13x8xf32>, tensor<0x1x13x4xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {schedule = #flash.schedule<arch = "sm_80", block_q = 4, block_kv = 4, stages = 1, warps = 8>}
      : tensor<0x2x10x8xf32>, tensor<0x1x13x8xf32>, tensor<0x1x13x4xf32>, tensor<0x2x10x4xf32>, tensor<0x2x10x4xf32>, tensor<0x2x10xf32>
      -> tensor<0x2x10x8xf32>, tensor<0x1x13x8xf32>, tensor<0x1x13x4xf32>
  return %dq, %dk, %dv : tensor<0x2x10x8xf32>, tensor<0x1x13x8xf32>, tensor<0x1x13x4xf32>
}
