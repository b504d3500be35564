// RUN: flash-opt %s --flash-tile --flash-select-kernel-form="persistent=no ping-pong=no" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s
// RUN: flash-opt %s --flash-tile --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=NOSCORES

// flash-lower-to-nvgpu (sm_90a): FlashAttention-3's design. A producer
// warpgroup loads Q, K, V with TMA into swizzled shared memory, completing
// on mbarriers; two consumer warpgroups (64 rows each) run S = Q·Kᵀ on
// wgmma with both operands in shared memory and O += P·V on wgmma with P in
// registers; setmaxnreg moves registers from the producer to the consumers.
// This file pins the one-tile-per-block kernel without ping-pong; the
// persistent grid and ping-pong (both on by default here) have their own
// files.

// NOSCORES-NOT: 1000x1000

// The launch contract: tensor maps for Q, K, V, O (rank 3, 64-column boxes,
// 128-byte swizzle), three warpgroups, the register split.
// CHECK: module attributes {flash.kernels = [{arch = "sm_90a", args = ["q:tensormap", "k:tensormap", "v:tensormap", "o:tensormap", "lse:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "Nk:i32", "scale:f32"]
// CHECK-SAME: consumer_registers = 240 : i64, consumer_warpgroups = 2 : i64
// CHECK-SAME: producer_registers = 24 : i64
// CHECK-SAME: tensor_maps = [{box = [64, 128, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "q"}, {box = [64, 64, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "k"}, {box = [64, 64, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "v"}, {box = [64, 64, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "o"}]
// CHECK-SAME: threads = 384 : i64
// CHECK: gpu.module @gqa_bf16_module
// CHECK: llvm.mlir.global external @flash_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// Tensor maps are __grid_constant__ parameters (CUtensorMap by value).
// CHECK: llvm.func @gqa_bf16(%[[TMQ:.+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<16 x i64>, nvvm.grid_constant}, %[[TMK:.+]]: !llvm.ptr {{.*}}nvvm.grid_constant}, %[[TMV:.+]]: !llvm.ptr {{.*}}nvvm.grid_constant}, %[[TMO:.+]]: !llvm.ptr {{.*}}nvvm.grid_constant}, %{{.+}}: !llvm.ptr<1>, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: f32)
// CHECK-SAME: nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>
// One thread initialises the mbarriers (full and empty Q; full and empty K
// and V per stage).
// CHECK-COUNT-10: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// Producer: few registers; TMA loads of Q, then K and V per stage, each
// announced with expect_tx and gated by the stage's "empty" barrier.
// CHECK: nvvm.setmaxregister  decrease 24
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMQ]], %{{.+}}, box[
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMK]], %{{.+}}, box[
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMV]], %{{.+}}, box[
// Consumers: many registers; S = Q·Kᵀ on wgmma m64n64k16 from shared memory.
// CHECK: nvvm.setmaxregister  increase 240
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %{{.+}}, <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// The steady state: S_j, then P_{j-1}·V_{j-1} with P from registers (RS
// wgmma through inline PTX, V transposed), softmax of S_j in between.
// CHECK: scf.for
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.mbarrier.arrive
// CHECK: gpu.shuffle  xor
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: scf.yield
// The masked loop (diagonal and tail tiles) compares key indices.
// CHECK: scf.for
// CHECK: arith.cmpi sle
// CHECK: scf.yield
// Epilogue: O = acc / l, LSE to global memory (rows < Nq only), then O into
// this consumer's rows of the Q buffer (swizzled 16-byte chunks, every row:
// the TMA store clips rows past Nq); then a fence for the async proxy, the
// warpgroup's barrier, and one thread's TMA stores of O (one box per 64
// columns), which release the Q buffer once read.
// CHECK: arith.divf
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"
// CHECK: memref.store
// CHECK: arith.xori
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK-NOT: scf.if
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %{{.+}} number_of_threads = %c128_i32
// CHECK: scf.if
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta %[[TMO]], %{{.+}}, box[
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.mbarrier.arrive
// CHECK: llvm.return
func.func @gqa_bf16(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>) -> (tensor<2x8x1000x128xbf16>, tensor<2x8x1000xf32>) {
  %o, %l = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 64, stages = 2, warps = 12>}
      : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16> -> tensor<2x8x1000x128xbf16>, tensor<2x8x1000xf32>
  return %o, %l : tensor<2x8x1000x128xbf16>, tensor<2x8x1000xf32>
}
