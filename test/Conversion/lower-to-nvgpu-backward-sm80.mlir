// RUN: flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_80 | FileCheck %s
// RUN: flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_80 | FileCheck %s --check-prefix=NOSCORES

// flash-lower-to-nvgpu (sm_80) on a backward descriptor: FlashAttention-2's
// backward as three kernels in one gpu.module (SM80/BackwardKernel.cpp),
// built from #flash.kernel<kind = backward, ...> alone. The input is the
// tiling's shape of a backward function (written by hand here): Q, K, V, O,
// dO, LSE in; a preprocess loop tagged flash.stage = "preprocess" (ignored:
// the lowering builds its own) and the descriptor's loop returning dQ, dK,
// dV. The loop bodies are not read.

// No buffer of Nq×Nk (1000×1000) elements exists in any kernel.
// NOSCORES-NOT: 1000x1000

// The launch contract: op, the kernels in launch order with their grids and
// arguments, and the workspaces sized by formulas of the call's shapes.
// CHECK: module attributes {flash.kernels = [{
// CHECK-SAME: arch = "sm_80"
// CHECK-SAME: deterministic = false
// CHECK-SAME: kernel = "gqa_causal"
// CHECK-SAME: launches = [{args = ["o:ptr", "dout:ptr", "lse:ptr", "lse_log2:ptr", "delta:ptr", "dq_accum:ptr", "B:i32", "Hq:i32", "Nq:i32", "o_stride0:i32", "o_stride1:i32", "o_stride2:i32", "dout_stride0:i32", "dout_stride1:i32", "dout_stride2:i32"], dynamic_shared_memory = 0 : i64, grid = ["ceildiv(Nq, 128)", "Hq", "B"], kernel = "gqa_causal_preprocess", threads = 128 : i64}
// CHECK-SAME: {args = ["q:ptr", "k:ptr", "v:ptr", "dout:ptr", "lse_log2:ptr", "delta:ptr", "dq_accum:ptr", "dk:ptr", "dv:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "Nk:i32", "scale:f32"], dynamic_shared_memory = 58368 : i64, grid = ["Hkv", "ceildiv(Nk, 64)", "B"], kernel = "gqa_causal", threads = 128 : i64}
// CHECK-SAME: {args = ["dq_accum:ptr", "dq:ptr", "B:i32", "Hq:i32", "Nq:i32", "scale:f32", "dq_stride0:i32", "dq_stride1:i32", "dq_stride2:i32"], dynamic_shared_memory = 0 : i64, grid = ["ceildiv(Nq, 128)", "Hq", "B"], kernel = "gqa_causal_convert", threads = 128 : i64}]
// CHECK-SAME: op = "attention_backward"
// CHECK-SAME: workspaces = [{bytes = "B*Hq*ceildiv(Nq, 128)*128*4", name = "lse_log2"}, {bytes = "B*Hq*ceildiv(Nq, 128)*128*4", name = "delta"}, {bytes = "B*Hq*ceildiv(Nq, 128)*128*64*4", name = "dq_accum"}]
// CHECK-NOT: func.func @gqa_causal
// CHECK: gpu.module @gqa_causal_module

// 1. preprocess: Δ = rowsum(dO∘O) from 16-byte loads, reduced over the
// row's 8 lanes; shift = LSE·log2(e), +inf where LSE = -inf or past Nq;
// the dQ accumulator zeroed. O and dO are read with the strides the plan
// passes (elements of B, H, N): batch·stride0 + head·stride1 + row·stride2.
// CHECK-LABEL: gpu.func @gqa_causal_preprocess(
// CHECK-SAME: %[[OB:arg9]]: i32, %[[OH:arg10]]: i32, %[[ON:arg11]]: i32, %[[DB:arg12]]: i32, %[[DH:arg13]]: i32, %[[DN:arg14]]: i32)
// CHECK-DAG: arith.muli %{{.+}}, %[[OB]] : i32
// CHECK-DAG: arith.muli %{{.+}}, %[[OH]] : i32
// CHECK-DAG: arith.muli %{{.+}}, %[[DB]] : i32
// CHECK-DAG: arith.muli %{{.+}}, %[[DH]] : i32
// CHECK-DAG: arith.muli %{{.+}}, %[[DN]] : i32
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<1099511627776xbf16, 1>, vector<8xbf16>
// CHECK: arith.muli %{{.+}}, %[[ON]] : i32
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<1099511627776xbf16, 1>, vector<8xbf16>
// CHECK: arith.mulf {{.*}} : vector<8xf32>
// CHECK: vector.reduction <add>
// CHECK: gpu.shuffle  xor
// CHECK: arith.cmpf one, %{{.+}}, %cst{{.*}} : f32
// CHECK: arith.select %{{.+}}, %{{.+}}, %cst{{.*}} : f32
// CHECK: vector.store %{{.+}} {alignment = 16 : i64} : memref<1099511627776xf32, 1>, vector<4xf32>
// CHECK: gpu.return

// 2. main (.minnctapersm 1): per K/V tile, a loop over (q-head of the
// group, Q tile) visits with cp.async double buffering; the thread's
// coordinates read again in each visit (an opaque mov of %tid.x, so that
// LLVM does not hoist every shared address out of the loop); Sᵀ = K·Qᵀ
// (ldmatrix, mma.sync); the mask in a uniform branch; P = exp2(S·c − shift);
// dPᵀ − Δ = V·dOᵀ accumulated onto −Δ; dSᵀ = Pᵀ∘(dPᵀ − Δ) through shared
// memory; after the barrier dV and dK from the packed fragments and
// ldmatrix.trans of dO and Q, and dQ (ldmatrix.trans for both operands)
// into the fragment-ordered accumulator by f32 atomics, one 128-byte line
// per instruction (immediate offsets 128·tile + 32·(2h + e) floats).
// CHECK-LABEL: gpu.func @gqa_causal(
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK: nvgpu.device_async_copy {{.*}}, 4 {bypassL1} : memref<1099511627776xf32, 1> to memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "mov.u32 $0, %tid.x;", "=r"
// CHECK: nvgpu.device_async_wait %{{.+}} {numGroups = 0 : i32}
// CHECK: gpu.barrier
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvvm.mma.sync
// CHECK: scf.if %{{.+}} -> (f32,
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi sle
// CHECK: arith.select %{{.+}}, %{{.+}}, %{{.+}} : f32
// CHECK: memref.load %{{.+}} : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK: memref.load %{{.+}} : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: arith.negf
// CHECK: nvvm.mma.sync
// CHECK-NOT: arith.subf
// CHECK: memref.store %{{.+}} : memref<2048xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK: nvgpu.ldmatrix %{{.+}} {numTiles = 4 : i32, transpose = true} : memref<4096xbf16
// CHECK: %[[LINE:.+]] = llvm.getelementptr %{{.+}}[32] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
// CHECK-NEXT: llvm.atomicrmw fadd %[[LINE]], %{{.+}} syncscope("device") monotonic
// CHECK: scf.yield
// dK·scale and dV, for keys below Nk (the coordinates read again).
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "mov.u32 $0, %ctaid.x;", "=r"
// CHECK: arith.mulf
// CHECK: memref.store %{{.+}} : memref<1099511627776xi32, 1>
// CHECK: gpu.return

// 3. convert: dQ = scale·dQaccum in bf16, rows below Nq, the two 4-float
// halves of a row's 8 columns from fragment order interleaved; dQ written
// with its strides (dq_stride0..2).
// CHECK-LABEL: gpu.func @gqa_causal_convert(
// CHECK-SAME: %[[QB:arg6]]: i32, %[[QH:arg7]]: i32, %[[QN:arg8]]: i32)
// CHECK-DAG: arith.muli %{{.+}}, %[[QB]] : i32
// CHECK-DAG: arith.muli %{{.+}}, %[[QH]] : i32
// CHECK: arith.muli %{{.+}}, %[[QN]] : i32
// CHECK: vector.load {{.*}} : memref<1099511627776xf32, 1>, vector<4xf32>
// CHECK: vector.shuffle %{{.+}}, %{{.+}} [0, 4, 1, 5, 2, 6, 3, 7] : vector<4xf32>, vector<4xf32>
// CHECK: arith.truncf {{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK: vector.store
func.func @gqa_causal(%q: tensor<2x8x1000x64xbf16>, %k: tensor<2x2x1000x64xbf16>, %v: tensor<2x2x1000x64xbf16>, %o: tensor<2x8x1000x64xbf16>, %do: tensor<2x8x1000x64xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x64xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x64xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x64xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>>}
  return %dq, %dk, %dv : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>
}

// -----

// Deterministic: no atomics and no dQ accumulator; a dQ kernel over Q tiles
// (looping over the K/V tiles each sees) replaces convert.
// CHECK: module attributes {flash.kernels = [{
// CHECK-SAME: deterministic = true
// CHECK-SAME: kernel = "deterministic_f16_d128_preprocess"
// CHECK-SAME: kernel = "deterministic_f16_d128", threads = 256 : i64
// CHECK-SAME: {args = ["q:ptr", "k:ptr", "v:ptr", "dout:ptr", "lse_log2:ptr", "delta:ptr", "dq:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "Nk:i32", "scale:f32"], dynamic_shared_memory = 98304 : i64, grid = ["ceildiv(Nq, 64)", "Hq", "B"], kernel = "deterministic_f16_d128_dq", threads = 128 : i64}]
// CHECK-SAME: workspaces = [{bytes = "B*Hq*ceildiv(Nq, 128)*128*4", name = "lse_log2"}, {bytes = "B*Hq*ceildiv(Nq, 128)*128*4", name = "delta"}]
// CHECK-NOT: atomicrmw
// CHECK-LABEL: gpu.func @deterministic_f16_d128_dq(
// The forward's visible K/V range per Q tile: an unmasked then a masked loop.
// CHECK: scf.for
// CHECK: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32)
// CHECK: scf.for
// CHECK: arith.cmpi sle
// CHECK: gpu.return
// CHECK-NOT: atomicrmw
func.func @deterministic_f16_d128(%q: tensor<1x4x333x128xf16>, %k: tensor<1x4x777x128xf16>, %v: tensor<1x4x777x128xf16>, %o: tensor<1x4x333x128xf16>, %do: tensor<1x4x333x128xf16>, %lse: tensor<1x4x333xf32>) -> (tensor<1x4x333x128xf16>, tensor<1x4x777x128xf16>, tensor<1x4x777x128xf16>) {
  %d0 = tensor.empty() : tensor<1x4x333xf32>
  %delta = scf.forall (%b, %h) in (1, 4) shared_outs(%acc = %d0) -> (tensor<1x4x333xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<1x4x333x128xf16>
  %dk0 = tensor.empty() : tensor<1x4x777x128xf16>
  %dv0 = tensor.empty() : tensor<1x4x777x128xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 4, 7) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<1x4x333x128xf16>, tensor<1x4x777x128xf16>, tensor<1x4x777x128xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 1, q_heads = 4, kv_heads = 4, seq_q = 333, seq_kv = 777, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 128, stages = 2, warps = 8>, deterministic = true>}
  return %dq, %dk, %dv : tensor<1x4x333x128xf16>, tensor<1x4x777x128xf16>, tensor<1x4x777x128xf16>
}

// -----

// The shape flash-tile gives the backward: the preprocess (Δ and the zeroed
// f32 dQ workspace), the descriptor's loop (dK, dV and the workspace) and
// the dQ conversion, whose result the function returns with dK and dV. The
// stage loops are rebuilt as the plan's first and last kernels. block_q =
// 128 (the model's choice at D = 64): the main kernel visits Q tiles of 128
// rows (shared memory: K, V, two stages of Q and dO, dSᵀ of 128×128, the
// rows' shift and Δ), its grid with the K/V tile on y (causal).
// CHECK: module attributes {flash.kernels = [{
// CHECK-SAME: block_kv = 128 : i64, block_q = 128 : i64
// CHECK-SAME: kernel = "from_flash_tile_preprocess"
// CHECK-SAME: dynamic_shared_memory = 133120 : i64, grid = ["Hkv", "ceildiv(Nk, 128)", "B"], kernel = "from_flash_tile", threads = 256 : i64
// CHECK-SAME: kernel = "from_flash_tile_convert"
// CHECK-NOT: func.func @from_flash_tile
// CHECK: gpu.func @from_flash_tile_preprocess(
// CHECK: gpu.func @from_flash_tile(
// CHECK: gpu.func @from_flash_tile_convert(
func.func @from_flash_tile(%q: tensor<2x8x1000x64xbf16>, %k: tensor<2x2x1000x64xbf16>, %v: tensor<2x2x1000x64xbf16>, %o: tensor<2x8x1000x64xbf16>, %do: tensor<2x8x1000x64xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %w0 = tensor.empty() : tensor<2x8x1000x64xf32>
  %pre:2 = scf.forall (%b, %h, %t) in (2, 8, 8) shared_outs(%pd = %d0, %pw = %w0) -> (tensor<2x8x1000xf32>, tensor<2x8x1000x64xf32>) {
  } {flash.stage = "preprocess"}
  %dk0 = tensor.empty() : tensor<2x2x1000x64xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x64xbf16>
  %main:3 = scf.forall (%b, %h) in (2, 2) shared_outs(%sk = %dk0, %sv = %dv0, %sw = %pre#1) -> (tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x8x1000x64xf32>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 128, block_kv = 128, stages = 2, warps = 8>>}
  %dq0 = tensor.empty() : tensor<2x8x1000x64xbf16>
  %conv = scf.forall (%b, %h, %t) in (2, 8, 8) shared_outs(%cq = %dq0) -> (tensor<2x8x1000x64xbf16>) {
  } {flash.stage = "dq_convert"}
  return %conv, %main#0, %main#1 : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>
}

// -----

// D = 256 (block_kv = 8·warps, Q tiles of 32 rows): two warps share 16 K/V
// rows and split the products, so that Sᵀ and dPᵀ are computed once: warps
// [0, 4) compute Sᵀ of their 16 keys × 32 queries (one branch: 16 k-steps ×
// 4 mma.sync), mask, recompute Pᵀ and write it in f32 to the probs tile
// (2048 floats: 16 per lane) and as 16-bit pairs to the exchange tile (the
// dSᵀ tile's rows of 64 elements); warps [4, 8) compute dPᵀ − Δ (the other
// branch, 64). After a barrier the dPᵀ warps read Pᵀ back, form dSᵀ and
// write it to the exchange tile; after another every warp multiplies a tile
// of 32 keys × 64 columns of dV and dK, A by ldmatrix (not transposed) from
// the exchange tile (2 m-tiles × 8 n-tiles × 2 k-steps: 32 each), then dQ
// (32) into the accumulator by atomics. A warp runs 160 mma.sync per visit
// (224 when both warps of a pair computed Sᵀ and dPᵀ); shared memory: K, V,
// two stages of Q and dO, the exchange tile, shift, Δ and the probs tile.
// CHECK: module attributes {flash.kernels = [{
// CHECK-SAME: dynamic_shared_memory = 147968 : i64, grid = ["ceildiv(Nk, 64)", "Hkv", "B"], kernel = "pairs_d256", threads = 256 : i64
// CHECK-LABEL: gpu.func @pairs_d256(
// CHECK: scf.for
// CHECK: scf.if %{{.+}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-COUNT-64: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK-COUNT-16: memref.store %{{.+}} : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-8: memref.store %{{.+}} : memref<2048xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK: arith.negf
// CHECK-COUNT-64: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.barrier
// CHECK: arith.cmpi uge
// CHECK-NEXT: scf.if
// CHECK-COUNT-16: memref.load %{{.+}} : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-8: memref.store %{{.+}} : memref<2048xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvgpu.ldmatrix %{{.+}} {numTiles = 4 : i32, transpose = false} : memref<4096xbf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-96: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: llvm.atomicrmw fadd
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
func.func @pairs_d256(%q: tensor<1x2x1000x256xbf16>, %k: tensor<1x1x1000x256xbf16>, %v: tensor<1x1x1000x256xbf16>, %o: tensor<1x2x1000x256xbf16>, %do: tensor<1x2x1000x256xbf16>, %lse: tensor<1x2x1000xf32>) -> (tensor<1x2x1000x256xbf16>, tensor<1x1x1000x256xbf16>, tensor<1x1x1000x256xbf16>) {
  %d0 = tensor.empty() : tensor<1x2x1000xf32>
  %delta = scf.forall (%b, %h) in (1, 2) shared_outs(%acc = %d0) -> (tensor<1x2x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<1x2x1000x256xbf16>
  %dk0 = tensor.empty() : tensor<1x1x1000x256xbf16>
  %dv0 = tensor.empty() : tensor<1x1x1000x256xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 1, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<1x2x1000x256xbf16>, tensor<1x1x1000x256xbf16>, tensor<1x1x1000x256xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 2, kv_heads = 1, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = false, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 32, block_kv = 64, stages = 2, warps = 8>>}
  return %dq, %dk, %dv : tensor<1x2x1000x256xbf16>, tensor<1x1x1000x256xbf16>, tensor<1x1x1000x256xbf16>
}
