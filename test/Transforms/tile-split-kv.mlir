// RUN: flash-opt %s --flash-tile --split-input-file | FileCheck %s
// RUN: flash-opt %s --flash-tile --canonicalize --split-input-file | FileCheck %s --check-prefix=FOLD
// RUN: flash-opt %s --flash-tile --flash-decompose --split-input-file | FileCheck %s --check-prefix=NOFLASH

// flash-tile's split-KV form (Flash-Decoding): the split stage over
// (batch, kv-head, Q tile, split) writing partial O and LSE into the
// workspaces, then the merge stage over (batch, kv-head).
// After decomposition no flash op is left (the descriptor attributes stay).
// NOFLASH-NOT: = flash.

// A paged op: GQA 8/2 with Nq = 2 packs 4 q-heads × 2 queries = 8 rows per
// kv-head (row r is q-head 4g + r / 2, query r mod 2).
// The function is the split loop and the merge loop over the op's operands,
// returning the merge loop's results (the form flash-lower-to-nvgpu builds
// the decode kernels from): Q is packed and O unpacked inside the loops.
// CHECK-LABEL: func.func @paged
// CHECK-SAME: (%[[Q:.+]]: tensor<2x8x2x16xf16>, %[[KC:.+]]: tensor<40x3x2x16xf16>, %[[VC:.+]]: tensor<40x3x2x8xf16>, %[[BT:.+]]: tensor<2x12xi32>, %[[SL:.+]]: tensor<2xi32>)
// The workspaces: partial O (f32) and LSE of every split, B×Hkv×max_splits×rows(×Dv).
// CHECK-NEXT: %[[WO:.+]] = tensor.empty() : tensor<2x2x108x8x8xf32>
// CHECK-NEXT: %[[WL:.+]] = tensor.empty() : tensor<2x2x108x8xf32>
// CHECK-NEXT: %[[PARTS:.+]]:2 = scf.forall (%[[B:.+]], %[[G:.+]], %[[T:.+]], %[[S:.+]]) in (2, 2, 1, 108) shared_outs(%[[PO:.+]] = %[[WO]], %[[PL:.+]] = %[[WL]])
// CHECK: %[[Q0:.+]] = arith.muli %[[T]], %{{.+}} : index
// CHECK: %[[Q5:.+]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 4, 2, 16]
// CHECK: %[[QP:.+]] = tensor.collapse_shape %[[Q5]] {{\[}}[0], [1], [2, 3], [4]] : tensor<2x2x4x2x16xf16> into tensor<2x2x8x16xf16>
// CHECK: %[[QT:.+]] = flash.load_tile %[[QP]][%[[B]], %[[G]], %[[Q0]]] : tensor<2x2x8x16xf16> -> tensor<16x16xf16>
// The sequence's length, a run-time value clamped to [0, M·S = 36].
// CHECK: %[[RAW:.+]] = tensor.extract %[[SL]][%[[B]]] : tensor<2xi32>
// CHECK: %[[RAWI:.+]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK: %[[NONNEG:.+]] = arith.maxsi %[[RAWI]], %{{.+}} : index
// CHECK: %[[C36:.+]] = arith.constant 36 : index
// CHECK: %[[LEN:.+]] = arith.minsi %[[NONNEG]], %[[C36]] : index
// splitKVCount (Target/SplitKV.h, the rule the GPU kernels evaluate): from
// the visible tiles ceil(len / 4), wanted = floor(2 · 108 / (2 · 2 · 1)) = 54
// parts, byLength = max(tiles / 4, 1); the one-part clause (16 · 4 work
// units >= 15 · 108 SMs?) folds away here.
// CHECK: %[[C54:.+]] = arith.constant 54 : index
// CHECK: %[[BY0:.+]] = arith.divsi %[[TILES:.+]], %{{.+}} : index
// CHECK: %[[BY:.+]] = arith.maxsi %[[BY0]], %{{.+}} : index
// CHECK: %[[W1:.+]] = arith.minsi %[[BY]], %[[C54]] : index
// The split's tiles [first, end) of the visible range.
// CHECK: %[[FIRST0:.+]] = arith.muli %[[S]], %[[PER:.+]] : index
// CHECK: %[[FIRST:.+]] = arith.minsi %[[FIRST0]], %[[TILES]] : index
// CHECK: %[[END0:.+]] = arith.addi %[[FIRST]], %[[PER]] : index
// CHECK: %[[END:.+]] = arith.minsi %[[END0]], %[[TILES]] : index
// CHECK: %[[UEND0:.+]] = arith.minsi %{{.+}}, %[[END]] : index
// CHECK: %[[UEND:.+]] = arith.maxsi %[[UEND0]], %[[FIRST]] : index
// Unmasked tiles: K and V through the block table, no mask.
// CHECK: %[[LOOP:.+]]:3 = scf.for %[[J:.+]] = %[[FIRST]] to %[[UEND]]
// CHECK: %[[K0:.+]] = arith.muli %[[J]], %{{.+}} : index
// CHECK: flash.load_paged_tile %[[KC]], %[[BT]][%[[B]], %[[G]], %[[K0]]], %[[LEN]] : tensor<40x3x2x16xf16>, tensor<2x12xi32> -> tensor<4x16xf16>
// CHECK: flash.load_paged_tile %[[VC]], %[[BT]][%[[B]], %[[G]], %[[K0]]], %[[LEN]] : tensor<40x3x2x8xf16>, tensor<2x12xi32> -> tensor<4x8xf16>
// CHECK-NOT: flash.mask
// CHECK: scf.yield
// Masked tiles: by the length and each row's causal diagonal
// key > (row mod 2) + len - 2.
// CHECK: %[[MLOOP:.+]]:3 = scf.for %{{.+}} = %[[UEND]] to %[[END]] step %{{.+}} iter_args(%{{.+}} = %[[LOOP]]#0, %{{.+}} = %[[LOOP]]#1, %{{.+}} = %[[LOOP]]#2)
// CHECK: %[[OFF:.+]] = arith.subi %[[LEN]], %{{.+}} : index
// CHECK: flash.mask %{{.+}}[%[[Q0]], %{{.+}}] kv_len(%[[LEN]]) causal_offset(%[[OFF]]) {rows_per_head = 2 : i64} : tensor<16x4xf32>
// The split's O stays in f32 for the merge.
// CHECK: %[[OT:.+]], %[[LT:.+]] = flash.finalize %[[MLOOP]]#2, %[[MLOOP]]#0, %[[MLOOP]]#1 : tensor<16x8xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16x8xf32>, tensor<16xf32>
// CHECK: tensor.parallel_insert_slice %{{.+}} into %[[PO]][%[[B]], %[[G]], %[[S]], %[[Q0]], 0] [1, 1, 1, %{{.+}}, 8]
// CHECK: tensor.parallel_insert_slice %{{.+}} into %[[PL]][%[[B]], %[[G]], %[[S]], %[[Q0]]] [1, 1, 1, %{{.+}}]
// The split stage carries the kernel descriptor (kind paged, its page size
// and the workspace's capacity).
// CHECK: flash.kernel = #flash.kernel<kind = paged, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 2, seq_kv = 36, head_dim = 16, value_dim = 8, causal = true, lse = true, scale = 2.500000e-01 : f32, schedule = <arch = "sm_80", block_q = 16, block_kv = 4, stages = 2, warps = 4, max_splits = 108>, page_size = 3, max_splits = 108>, flash.stage = "split"
// The merge stage: the same length gives the same split count; the merged
// rows of kv-head g go to q-heads [4g, 4g + 4) of the B×Hq×Nq(×Dv) results.
// CHECK: %[[OE:.+]] = tensor.empty() : tensor<2x8x2x8xf16>
// CHECK-NEXT: %[[LE:.+]] = tensor.empty() : tensor<2x8x2xf32>
// CHECK-NEXT: %[[MERGED:.+]]:2 = scf.forall (%[[MB:.+]], %[[MG:.+]]) in (2, 2) shared_outs(%[[MO_OUT:.+]] = %[[OE]], %[[ML_OUT:.+]] = %[[LE]])
// CHECK: tensor.extract %[[SL]][%[[MB]]]
// CHECK: %[[SPO:.+]] = tensor.extract_slice %[[PARTS]]#0[%[[MB]], %[[MG]], 0, 0, 0] [1, 1, 108, 8, 8] [1, 1, 1, 1, 1] : tensor<2x2x108x8x8xf32> to tensor<108x8x8xf32>
// CHECK: %[[SPL:.+]] = tensor.extract_slice %[[PARTS]]#1[%[[MB]], %[[MG]], 0, 0] [1, 1, 108, 8] [1, 1, 1, 1] : tensor<2x2x108x8xf32> to tensor<108x8xf32>
// CHECK: %[[MO:.+]], %[[ML:.+]] = flash.merge_splits %[[SPO]], %[[SPL]], %{{.+}} : tensor<108x8x8xf32>, tensor<108x8xf32> -> tensor<8x8xf16>, tensor<8xf32>
// CHECK: %[[MO4:.+]] = tensor.expand_shape %[[MO]] {{\[}}[0, 1, 2], [3]] output_shape [1, 4, 2, 8] : tensor<8x8xf16> into tensor<1x4x2x8xf16>
// CHECK: %[[ML3:.+]] = tensor.expand_shape %[[ML]] {{\[}}[0, 1, 2]] output_shape [1, 4, 2] : tensor<8xf32> into tensor<1x4x2xf32>
// CHECK: %[[H0:.+]] = arith.muli %[[MG]], %{{.+}} : index
// CHECK: tensor.parallel_insert_slice %[[MO4]] into %[[MO_OUT]][%[[MB]], %[[H0]], 0, 0] [1, 4, 2, 8]
// CHECK: tensor.parallel_insert_slice %[[ML3]] into %[[ML_OUT]][%[[MB]], %[[H0]], 0] [1, 4, 2]
// CHECK: flash.stage = "merge"
// CHECK-NEXT: return %[[MERGED]]#0, %[[MERGED]]#1
func.func @paged(%q: tensor<2x8x2x16xf16>, %kc: tensor<40x3x2x16xf16>, %vc: tensor<40x3x2x8xf16>, %bt: tensor<2x12xi32>, %sl: tensor<2xi32>) -> (tensor<2x8x2x8xf16>, tensor<2x8x2xf32>) {
  %o, %l = flash.paged_attention %q, %kc, %vc, %bt, %sl {causal, schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 4, stages = 2, warps = 4, max_splits = 108>}
      : tensor<2x8x2x16xf16>, tensor<40x3x2x16xf16>, tensor<40x3x2x8xf16>, tensor<2x12xi32>, tensor<2xi32> -> tensor<2x8x2x8xf16>, tensor<2x8x2xf32>
  return %o, %l : tensor<2x8x2x8xf16>, tensor<2x8x2xf32>
}

// -----

// A few-row flash.attention (a split-KV schedule): the lengths are static,
// so the split count folds. Nk = 100 in tiles of 8: 13 tiles, 12 of them
// whole and below the diagonal of the one query; splitKVCount: byLength =
// 13 / 4 = 3 parts (the 108 SMs want 108), capacity 3: 3 splits of 5 tiles.
// FOLD-LABEL: func.func @decode
// FOLD-DAG: %[[C3:.+]] = arith.constant 3 : index
// FOLD-DAG: %[[C5:.+]] = arith.constant 5 : index
// FOLD-DAG: %[[C12:.+]] = arith.constant 12 : index
// FOLD-DAG: %[[C13:.+]] = arith.constant 13 : index
// FOLD: scf.forall (%[[G:.+]], %[[S:.+]]) in (2, 3)
// FOLD: %[[F0:.+]] = arith.muli %[[S]], %[[C5]] : index
// FOLD: %[[FIRST:.+]] = arith.minsi %[[F0]], %[[C13]] : index
// FOLD: %[[E0:.+]] = arith.addi %[[FIRST]], %[[C5]] : index
// FOLD: %[[END:.+]] = arith.minsi %[[E0]], %[[C13]] : index
// FOLD: %[[U0:.+]] = arith.minsi %[[END]], %[[C12]] : index
// FOLD: %[[UEND:.+]] = arith.maxsi %[[U0]], %[[FIRST]] : index
// FOLD: scf.for %{{.+}} = %[[FIRST]] to %[[UEND]]
// FOLD: flash.load_tile
// FOLD-NOT: flash.mask
// FOLD: scf.for %{{.+}} = %[[UEND]] to %[[END]]
// FOLD: flash.mask %{{.+}} {causal_offset = 99 : i64, kv_len = 100 : i64, rows_per_head = 1 : i64} : tensor<16x8xf32>
// FOLD: kind = split_kv
// FOLD: flash.merge_splits %{{.+}}, %{{.+}}, %[[C3]] : tensor<3x2x16xf32>, tensor<3x2xf32> -> tensor<2x16xf32>, tensor<2xf32>
func.func @decode(%q: tensor<1x4x1x16xf32>, %k: tensor<1x2x100x16xf32>, %v: tensor<1x2x100x16xf32>) -> tensor<1x4x1x16xf32> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 8, stages = 2, warps = 4, max_splits = 3>}
      : tensor<1x4x1x16xf32>, tensor<1x2x100x16xf32>, tensor<1x2x100x16xf32> -> tensor<1x4x1x16xf32>
  return %o : tensor<1x4x1x16xf32>
}

// -----

// The split count aims at one block an SM for a schedule of 3 stages and
// 256-byte K rows (bf16, D = 128; splitKVBlocksPerSM, as the GPU kernels):
// 32000 keys in tiles of 64 are 500 tiles, byLength 250, the 108 SMs want
// 108 parts: 108 parts of ceil(500 / 108) = 5 tiles, which is 100 splits
// (at two blocks an SM, 2 stages: 216 parts of 3 tiles, 167 splits).
// The split stage runs over the capacity (256); the count (100) and the
// tiles a split (5) fold.
// FOLD-LABEL: func.func @one_block_an_sm
// FOLD-DAG: %[[C100:.+]] = arith.constant 100 : index
// FOLD-DAG: %[[C5:.+]] = arith.constant 5 : index
// FOLD: scf.forall (%[[S:.+]]) in (256)
// FOLD: arith.muli %[[S]], %[[C5]] : index
func.func @one_block_an_sm(%q: tensor<1x8x1x128xbf16>, %k: tensor<1x1x32000x128xbf16>, %v: tensor<1x1x32000x128xbf16>) -> tensor<1x8x1x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 64, stages = 3, warps = 4, max_splits = 256>}
      : tensor<1x8x1x128xbf16>, tensor<1x1x32000x128xbf16>, tensor<1x1x32000x128xbf16> -> tensor<1x8x1x128xbf16>
  return %o : tensor<1x8x1x128xbf16>
}
