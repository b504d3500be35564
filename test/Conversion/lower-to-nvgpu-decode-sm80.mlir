// flash-lower-to-nvgpu on split-KV attentions (#flash.kernel kinds split_kv
// and paged) for sm_80: the split loop carries the descriptor, the merge
// loop (flash.stage = "merge") yields the function's results; the lowering
// reads only the descriptor and builds one kernel (the block finishing a
// row tile's last part merges the parts) in a gpu.module, recorded as a
// launch contract with its workspaces. The loop bodies are empty: the lowering ignores them.
// RUN: flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_80 | FileCheck %s
// RUN: flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_80 | FileCheck %s --check-prefix=RULE

// sm_80's 2 stages aim at two blocks an SM (Target/SplitKV.h,
// splitKVBlocksPerSM): the kernel's count of a sequence's parts takes 2·SMs
// (SMs: %arg13), as the grid below.
// RULE-LABEL: gpu.func @decode_split(
// RULE: arith.muli %c2_i32{{[_0-9]*}}, %arg13 : i32
// RULE: arith.muli %c15_i32{{[_0-9]*}}, %arg13 : i32

// The contract: op, tile (16 rows, 64 keys, 4 warps), the pipeline depth
// from the arch's shared memory (sm_80: 2 stages of 32 KiB at D = 128), the
// grid from the sizes, the cache's capacity (Nk: no more parts than a
// sequence of Nk keys has) and the SM count (never a length), the kernel's
// arguments, f32 partials and counters of finished parts sized by formulas
// (the sizes and the SM count only).
// CHECK: flash.kernels = [{arch = "sm_80", block_kv = 64 : i64, block_q = 16 : i64
// CHECK-SAME: dynamic_shared_memory = 69632 : i64
// CHECK-SAME: grid = ["min(max(max(min(ceildiv(sub(2*SMs, sub(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 1)), B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), max_splits), 1)*min(max(sub(15*SMs, 16*B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), 0), 1), 1), max(ceildiv(sub(ceildiv(Nk, block_kv), sub(2, 1)), 2), 1))", "Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)", "B"]
// CHECK-SAME: kernel = "decode_split", kernels = [{args = ["q:ptr", "k:ptr", "v:ptr", "o:ptr", "lse:ptr", "partial_o:ptr", "partial_lse:ptr", "split_counter:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "Nk:i32", "SMs:i32", "scale:f32"]
// CHECK-SAME: kernel = "decode_split", threads = 128 : i64}]
// CHECK-SAME: max_splits = 64 : i64, op = "attention_split_kv"
// CHECK-SAME: stages = 2 : i64
// CHECK-SAME: workspaces = [{bytes = "max(max(min(ceildiv(sub(2*SMs, sub(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 1)), B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), max_splits), 1)*min(max(sub(15*SMs, 16*B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), 0), 1), 1)*B*Hq*Nq*Dv*4", init = "none", kernel_restores = false, name = "partial_o"}, {bytes = "max(max(min(ceildiv(sub(2*SMs, sub(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 1)), B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), max_splits), 1)*min(max(sub(15*SMs, 16*B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), 0), 1), 1)*B*Hq*Nq*4", init = "none", kernel_restores = false, name = "partial_lse"}, {bytes = "B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)*2*ceildiv(max(max(min(ceildiv(sub(2*SMs, sub(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 1)), B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), max_splits), 1)*min(max(sub(15*SMs, 16*B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), 0), 1), 1), 16)*4", init = "zero", kernel_restores = true, name = "split_counter"}]
// CHECK: gpu.module @decode_split_module
// The kernel: 16-byte cp.async copies of K and V rows (zero-filled past the
// length), ldmatrix + mma.sync per warp (V transposed), the warps combined
// through shared memory; then the count of finished parts (a block barrier,
// then thread 0's atom.acq_rel.gpu, no membar.gl) and the last block's merge (a warp per row, reads past L1, one
// pass with a running maximum carried next to the sums: 16 parts' LSEs and
// O rows loaded at once at D = 128), which resets the count.
// CHECK: gpu.func @decode_split(
// CHECK: nvgpu.device_async_copy {{.*}} {bypassL1}
// A K/V tile wholly inside the length: 8 passes of K and V copies with no
// source count (no zero-fill; one base, constant offsets), else each row's
// copy zero-filled past the length.
// CHECK: scf.if
// CHECK-COUNT-16: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], 8 {bypassL1}
// CHECK: } else {
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: nvgpu.ldmatrix
// CHECK: nvvm.mma.sync
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK: gpu.barrier
// CHECK-NOT: nvvm.memory.barrier
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "atom.acq_rel.gpu.global.add.u32 $0, [$1], 1;", "=r,l,~{memory}"
// CHECK-NOT: nvvm.memory.barrier
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32) : i32 {
// CHECK-COUNT-16: llvm.load volatile {{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: llvm.load volatile
// CHECK: arith.maxnumf
// CHECK: llvm.atomicrmw xchg
// CHECK: gpu.return
// CHECK-NOT: gpu.func
// CHECK-NOT: func.func @decode_split
func.func @decode_split(%q: tensor<1x32x1x128xbf16>, %k: tensor<1x8x4096x128xbf16>, %v: tensor<1x8x4096x128xbf16>) -> (tensor<1x32x1x128xbf16>) {
  %partials = tensor.empty() : tensor<64x1x32x1x128xf32>
  %o0 = tensor.empty() : tensor<1x32x1x128xbf16>
  %p = scf.forall (%s, %h, %b) in (64, 8, 1) shared_outs(%part = %partials) -> (tensor<64x1x32x1x128xf32>) {
    scf.forall.in_parallel {
    }
  } {flash.kernel = #flash.kernel<kind = split_kv, element_type = bf16, batch = 1, q_heads = 32, kv_heads = 8, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 0.08838834764831843 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 64, stages = 2, warps = 4>, max_splits = 64>}
  %o = scf.forall (%r) in (32) shared_outs(%out = %o0) -> (tensor<1x32x1x128xbf16>) {
    scf.forall.in_parallel {
    }
  } {flash.stage = "merge"}
  return %o : tensor<1x32x1x128xbf16>
}

// -----

// Paged: the caches, the block table and the lengths (i32 loads), S and M
// as run-time sizes. The block-table window: 512 i32 of shared memory after
// the Q tile and the 2 K/V stages (4096 + 2·2·16384 = 69632, + 2048), filled
// from the table (4 entries a thread, independent loads) when the part's
// pages fit. The prologue's tile (one at 2 stages) takes its 8 rows' pages
// from the table in global memory, loads in flight with the window's; Q and
// that tile are copied, then the window is stored, with no barrier of its
// own: the one before the loop (and the loop's) precede every lookup. A
// lookup in the loop reads the window, or the table in global memory when
// the part has more pages.
// CHECK: dynamic_shared_memory = 71680 : i64
// CHECK-SAME: kernel = "decode_paged", kernels = [{args = ["q:ptr", "k:ptr", "v:ptr", "block_table:ptr", "seq_lens:ptr", "o:ptr", "lse:ptr", "partial_o:ptr", "partial_lse:ptr", "split_counter:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "S:i32", "M:i32", "SMs:i32", "scale:f32"]
// CHECK-SAME: op = "paged_attention", page_size = 16 : i64
// CHECK: gpu.func @decode_paged(
// CHECK: %[[WINDOW:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<512xi32, #gpu.address_space<workgroup>>
// CHECK: scf.if %[[FITS:.*]] -> (i32, i32, i32, i32) {
// CHECK-COUNT-4: memref.load {{.*}} : memref<1099511627776xi32, 1>
// CHECK-COUNT-8: memref.load {{.*}} : memref<1099511627776xi32, 1>
// CHECK-NOT: gpu.barrier
// CHECK: nvgpu.device_async_copy
// CHECK-NOT: gpu.barrier
// CHECK: scf.if %[[FITS]] {
// CHECK-COUNT-4: memref.store {{.*}}, %[[WINDOW]]
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: scf.if %[[FITS]] -> (i32, i32, i32, i32, i32, i32, i32, i32) {
// CHECK-COUNT-8: memref.load %[[WINDOW]]
// CHECK: } else {
// CHECK-COUNT-8: memref.load {{.*}} : memref<1099511627776xi32, 1>
// CHECK: nvgpu.device_async_copy
func.func @decode_paged(%q: tensor<1x32x1x128xbf16>, %k: tensor<256x16x8x128xbf16>, %v: tensor<256x16x8x128xbf16>, %table: tensor<1x256xi32>, %lens: tensor<1xi32>) -> (tensor<1x32x1x128xbf16>, tensor<1x32x1xf32>) {
  %partials = tensor.empty() : tensor<64x1x32x1x128xf32>
  %o0 = tensor.empty() : tensor<1x32x1x128xbf16>
  %l0 = tensor.empty() : tensor<1x32x1xf32>
  %p = scf.forall (%s, %h, %b) in (64, 8, 1) shared_outs(%part = %partials) -> (tensor<64x1x32x1x128xf32>) {
    scf.forall.in_parallel {
    }
  } {flash.kernel = #flash.kernel<kind = paged, element_type = bf16, batch = 1, q_heads = 32, kv_heads = 8, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = true, lse = true, scale = 0.08838834764831843 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 64, stages = 2, warps = 4>, page_size = 16, max_splits = 64>}
  %o:2 = scf.forall (%r) in (32) shared_outs(%out = %o0, %lout = %l0) -> (tensor<1x32x1x128xbf16>, tensor<1x32x1xf32>) {
    scf.forall.in_parallel {
    }
  } {flash.stage = "merge"}
  return %o#0, %o#1 : tensor<1x32x1x128xbf16>, tensor<1x32x1xf32>
}
