// RUN: flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s
// RUN: flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=ATOMIC

// Without `deterministic` the reductions are unordered: no semaphores
// (lower-to-nvgpu-backward-sm90a-deterministic.mlir has them). The only
// release is the dQ writer's count of each q-head once its last reduction
// has completed, the only acquire the convert's wait for that count
// (kBackwardConvertOverlapsMain).
// ATOMIC-NOT: dq_semaphore
// ATOMIC-NOT: ld.acquire
// ATOMIC-NOT: red.release
// ATOMIC: llvm.func @bwd(
// ATOMIC-NOT: ld.acquire
// ATOMIC: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// ATOMIC-NOT: ld.acquire
// ATOMIC: red.release.gpu.global.add.u32
// ATOMIC-NOT: red.release
// ATOMIC: gpu.func @bwd_convert(
// ATOMIC: ld.acquire.gpu.global.u32
// ATOMIC-NOT: red.release
// ATOMIC: nvvm.griddepcontrol  wait

// flash-lower-to-nvgpu (sm_90a), kind = backward: the main kernel of the
// backward (SM90/BackwardKernel.cpp), built from the #flash.kernel
// descriptor alone (the loop nest is flash-tile's; here only its descriptor
// and the function's shape matter). One block per K/V tile of 128 rows: a
// producer warpgroup streams Q, dO (TMA tiles) and the rows of the shift and
// Δ (bulk copies) through a two-slot mbarrier ring; two consumer warpgroups
// of 64 K/V rows each run, per Q tile, Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ (wgmma SS,
// K-major), dV += Pᵀ·dO and dK += dSᵀ·Q (wgmma RS, P and dS from registers),
// dQ = dS·K (wgmma SS, both operands MN-major: dSᵀ and K as stored), and
// stage dQ in shared memory, which a writer thread of the producer warpgroup
// adds to the f32 accumulator with one bulk reduction per tile.

func.func @bwd(%q: tensor<1x2x1000x128xbf16>, %k: tensor<1x1x1000x128xbf16>, %v: tensor<1x1x1000x128xbf16>, %o: tensor<1x2x1000x128xbf16>, %do: tensor<1x2x1000x128xbf16>, %lse: tensor<1x2x1000xf32>) -> (tensor<1x2x1000x128xbf16>, tensor<1x1x1000x128xbf16>, tensor<1x1x1000x128xbf16>) {
  %dq0 = tensor.empty() : tensor<1x2x1000x128xbf16>
  %dk0 = tensor.empty() : tensor<1x1x1000x128xbf16>
  %dv0 = tensor.empty() : tensor<1x1x1000x128xbf16>
  %r:3 = scf.forall (%i) in (8) shared_outs(%a = %dq0, %b = %dk0, %c = %dv0) -> (tensor<1x2x1000x128xbf16>, tensor<1x1x1000x128xbf16>, tensor<1x1x1000x128xbf16>) {
    scf.forall.in_parallel {
    }
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 2, kv_heads = 1, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = true, lse = false, scale = 0.0883883461 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>>}
  return %r#0, %r#1, %r#2 : tensor<1x2x1000x128xbf16>, tensor<1x1x1000x128xbf16>, tensor<1x1x1000x128xbf16>
}

// The launch contract (the backward's plan, shared with sm_80): the
// preprocess, this main kernel and the dQ convert, in that order, and their
// workspaces. The main kernel takes six tensor maps (Q and dO in 64-row
// boxes, K and V in 128-row boxes, dK and dV stored in 64-row boxes); its
// grid runs over (K/V tile, kv-head, batch).
// CHECK: module attributes {flash.kernels = [{arch = "sm_90a"
// CHECK-SAME: launches = [{args = ["o:ptr", "dout:ptr", "lse:ptr", "lse_log2:ptr", "delta:ptr", "dq_accum:ptr", "B:i32", "Hq:i32", "Nq:i32", "o_stride0:i32", "o_stride1:i32", "o_stride2:i32", "dout_stride0:i32", "dout_stride1:i32", "dout_stride2:i32", "dq_done:ptr"], dynamic_shared_memory = 0 : i64, grid = ["ceildiv(Nq, 128)", "Hq", "B"], kernel = "bwd_preprocess", threads = 128 : i64}
// CHECK-SAME: {args = ["q:tensormap", "k:tensormap", "v:tensormap", "dout:tensormap", "dk:tensormap", "dv:tensormap", "lse_log2:ptr", "delta:ptr", "dq_accum:ptr", "dq_done:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "Nk:i32", "scale:f32"], consumer_registers = 240 : i64, consumer_warpgroups = 2 : i64, dynamic_shared_memory = 198712 : i64, grid = ["ceildiv(Nk, 128)", "Hkv", "B"], kernel = "bwd", producer_registers = 24 : i64
// CHECK-SAME: tensor_maps = [{box = [64, 64, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "q"}, {box = [64, 128, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "k"}, {box = [64, 128, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "v"}, {box = [64, 64, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "dout"}, {box = [64, 64, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "dk"}, {box = [64, 64, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "dv"}], threads = 384 : i64}
// CHECK-SAME: {args = ["dq_accum:ptr", "dq:ptr", "B:i32", "Hq:i32", "Nq:i32", "scale:f32", "dq_stride0:i32", "dq_stride1:i32", "dq_stride2:i32", "dq_done:ptr", "Nk:i32"], dynamic_shared_memory = 0 : i64, grid = ["ceildiv(Nq, 128)", "Hq", "B"], kernel = "bwd_convert", programmatic_dependent_launch = true, threads = 128 : i64}]
// CHECK-SAME: op = "attention_backward"
// CHECK-SAME: workspaces = [{bytes = "B*Hq*ceildiv(Nq, 128)*128*4", name = "lse_log2"}, {bytes = "B*Hq*ceildiv(Nq, 128)*128*4", name = "delta"}, {bytes = "B*Hq*ceildiv(Nq, 128)*128*128*4", name = "dq_accum"}, {bytes = "B*Hq*4", name = "dq_done"}]
// CHECK: gpu.module @bwd_module
// CHECK: gpu.func @bwd_preprocess(
// CHECK: llvm.func @bwd(%[[TMQ:.+]]: !llvm.ptr {{.*}}nvvm.grid_constant}, %[[TMK:.+]]: !llvm.ptr {{.*}}nvvm.grid_constant}, %[[TMV:.+]]: !llvm.ptr {{.*}}nvvm.grid_constant}, %[[TMDO:.+]]: !llvm.ptr {{.*}}nvvm.grid_constant}, %[[TMDK:.+]]: !llvm.ptr {{.*}}nvvm.grid_constant}, %[[TMDV:.+]]: !llvm.ptr {{.*}}nvvm.grid_constant}, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: f32)
// CHECK-SAME: nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>
// mbarriers: K/V full; dQ full (every consumer thread, 256) and dQ empty
// (the writer, with one arrival at init); full and empty per slot (empty:
// every consumer thread).
// CHECK: nvvm.mbarrier.init %{{.+}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.+}}, %c256_i32
// CHECK-COUNT-5: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.setmaxregister  decrease 24
// The dQ writer (thread 32): per (q-head, Q tile) step, once the consumers
// have staged the tile, one bulk reduction of its rows before Nq (a run-time
// size); the tile is released once read; all complete at the end.
// CHECK: arith.cmpi eq, %{{.+}}, %c32_i32
// CHECK: scf.for
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], $2;"
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.cp.async.bulk.wait_group 0{{$}}
// Producer: K and V once (2 boxes each, 64 KB on one barrier), then per
// (q-head, Q tile) Q and dO (2 boxes each) and the 256-byte rows of the
// shift and Δ, after the slot's release.
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c65536_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMK]],
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMV]],
// CHECK: scf.for
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c33280_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMQ]],
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMDO]],
// CHECK-COUNT-2: nvvm.cp.async.bulk.shared.cluster.global %{{.+}}, %{{.+}}, %{{.+}}, %c256_i32
// Consumers: dK and dV (64 + 64 f32) carried over the heads and the Q
// tiles, the diagonal (masked) tiles first.
// CHECK: nvvm.setmaxregister  increase 240
// CHECK: scf.for {{.*}} iter_args
// CHECK: scf.for {{.*}} iter_args
// CHECK: nvvm.mbarrier.try_wait.parity
// Sᵀ and dPᵀ: 2 × 8 k-steps of m64n64k16, both operands K-major.
// CHECK-COUNT-16: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <{{zero|one}}>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// The mask of the transposed scores compares key rows with query columns.
// CHECK: arith.cmpi sle
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// dV += Pᵀ·dO, dK += dSᵀ·Q: 2 × 4 k-steps of RS m64n128k16 (B MN-major).
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// dQ of the previous step (one step late): after the other consumer's
// arrival for that step's dSᵀ, dS·K with both operands MN-major (A col, B
// row), n = 64 columns per warpgroup.
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.barrier id = %{{.+}} number_of_threads = %c256_i32
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <{{zero|one}}>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
// This step's dSᵀ to shared memory (4 stmatrix .x4 per thread); the slot's
// release once dK has read Q.
// CHECK-COUNT-4: nvvm.stmatrix {{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// The previous dQ, once the writer has read the tile before: 16-byte
// stores into the shared tile (8 per thread: 64 columns of 2 × 8 rows, the
// pairs of column tiles 2k and 2k + 1 of a row in one chunk), fenced for
// the bulk reduction, and this thread's arrival for the writer; then this
// consumer's arrival for the others' dQ of this step.
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-8: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.barrier.arrive id = %{{.+}} number_of_threads = %c256_i32
// The unmasked tiles: the same GEMMs, no compares of key rows.
// CHECK: scf.for {{.*}} iter_args
// CHECK-COUNT-16: nvvm.wgmma.mma_async
// CHECK-NOT: arith.cmpi sle
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// After the loops, the last step's dQ (the drain).
// CHECK: nvvm.barrier id = %{{.+}} number_of_threads = %c256_i32
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// Epilogue: dV, then (after every consumer's last dQ GEMM) dK·scale, each
// staged over its own rows of V or K and stored with TMA (2 boxes).
// CHECK: nvvm.barrier id = %{{.+}} number_of_threads = %c128_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta %[[TMDV]],
// CHECK: nvvm.barrier id = %{{.+}} number_of_threads = %c256_i32
// CHECK: arith.mulf
// CHECK: nvvm.barrier id = %{{.+}} number_of_threads = %c128_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta %[[TMDK]],
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK-NOT: {read}
// CHECK: llvm.return
// The convert reads the paired chunks (D = 128): a thread's 8 columns are a
// pair of floats from each of its 16-column group's four chunks.
// CHECK: gpu.func @bwd_convert(
// CHECK-COUNT-4: vector.load %{{.+}}[%{{.+}}] {alignment = 8 : i64} : memref<1099511627776xf32, 1>, vector<2xf32>
// CHECK: vector.shuffle %{{.+}}, %{{.+}} [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32>, vector<4xf32>

// -----

// D = 64: the same kernel; dQ's 64 columns are split between the two
// warpgroups, 32 each (m64n32k16).
func.func @bwd64(%q: tensor<2x4x333x64xf16>, %k: tensor<2x2x77x64xf16>, %v: tensor<2x2x77x64xf16>, %o: tensor<2x4x333x64xf16>, %do: tensor<2x4x333x64xf16>, %lse: tensor<2x4x333xf32>) -> (tensor<2x4x333x64xf16>, tensor<2x2x77x64xf16>, tensor<2x2x77x64xf16>) {
  %dq0 = tensor.empty() : tensor<2x4x333x64xf16>
  %dk0 = tensor.empty() : tensor<2x2x77x64xf16>
  %dv0 = tensor.empty() : tensor<2x2x77x64xf16>
  %r:3 = scf.forall (%i) in (8) shared_outs(%a = %dq0, %b = %dk0, %c = %dv0) -> (tensor<2x4x333x64xf16>, tensor<2x2x77x64xf16>, tensor<2x2x77x64xf16>) {
    scf.forall.in_parallel {
    }
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 4, kv_heads = 2, seq_q = 333, seq_kv = 77, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 0.125 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>>}
  return %r#0, %r#1, %r#2 : tensor<2x4x333x64xf16>, tensor<2x2x77x64xf16>, tensor<2x2x77x64xf16>
}
// CHECK-LABEL: gpu.module @bwd64_module
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <{{zero|one}}>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 32, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <col>], B[<f16>, <one>, <row>]
// 32 columns of 2 × 8 rows: 8 pairs per thread.
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-8: llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// D = 64 keeps 8-byte dQ stores and the convert of the unpaired chunks
// (two 16-byte loads a thread).
// CHECK: gpu.func @bwd64_convert(
// CHECK-COUNT-2: vector.load %{{.+}}[%{{.+}}] {alignment = 16 : i64} : memref<1099511627776xf32, 1>, vector<4xf32>
