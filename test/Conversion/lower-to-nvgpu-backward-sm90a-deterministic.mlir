// RUN: flash-opt %s --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s

// The sm_90a backward's deterministic plan (SM90/BackwardKernel.cpp): the
// kernels of the plan with bulk f32 reductions, and a `dq_semaphore`
// workspace (one i32 per (batch·q-head, Q tile of 64 rows): 2 per 128 rows)
// that orders the reductions of each Q tile's dQ by K/V tile. The
// preprocess zeroes it on every call. In the main kernel every block visits
// its Q tiles from the last (the unmasked ones first), so that the K/V tiles
// that see a Q tile reach it at the same step; the dQ writer (thread 32)
// waits (ld.acquire.gpu) until the K/V tiles before its own have counted
// their reductions of the tile, fences the async proxy, adds the tile, and
// once the reduction is complete (cp.async.bulk.wait_group 0, not .read)
// fences again and counts it (red.release.gpu). The plan without
// `deterministic` has none of this (lower-to-nvgpu-backward-sm90a.mlir,
// ATOMIC).

func.func @bwd_det(%q: tensor<1x4x1000x128xbf16>, %k: tensor<1x2x777x128xbf16>, %v: tensor<1x2x777x128xbf16>, %o: tensor<1x4x1000x128xbf16>, %do: tensor<1x4x1000x128xbf16>, %lse: tensor<1x4x1000xf32>) -> (tensor<1x4x1000x128xbf16>, tensor<1x2x777x128xbf16>, tensor<1x2x777x128xbf16>) {
  %dq0 = tensor.empty() : tensor<1x4x1000x128xbf16>
  %dk0 = tensor.empty() : tensor<1x2x777x128xbf16>
  %dv0 = tensor.empty() : tensor<1x2x777x128xbf16>
  %r:3 = scf.forall (%i) in (7) shared_outs(%a = %dq0, %b = %dk0, %c = %dv0) -> (tensor<1x4x1000x128xbf16>, tensor<1x2x777x128xbf16>, tensor<1x2x777x128xbf16>) {
    scf.forall.in_parallel {
    }
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 4, kv_heads = 2, seq_q = 1000, seq_kv = 777, head_dim = 128, value_dim = 128, causal = true, lse = false, scale = 0.0883883461 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>, deterministic = true>}
  return %r#0, %r#1, %r#2 : tensor<1x4x1000x128xbf16>, tensor<1x2x777x128xbf16>, tensor<1x2x777x128xbf16>
}

// The contract: the three kernels, the semaphores after dq_accum in the
// preprocess and the main kernel, the convert unchanged.
// CHECK: module attributes {flash.kernels = [{arch = "sm_90a"
// CHECK-SAME: deterministic = true
// CHECK-SAME: launches = [{args = ["o:ptr", "dout:ptr", "lse:ptr", "lse_log2:ptr", "delta:ptr", "dq_accum:ptr", "dq_semaphore:ptr", "B:i32", "Hq:i32", "Nq:i32", "o_stride0:i32", "o_stride1:i32", "o_stride2:i32", "dout_stride0:i32", "dout_stride1:i32", "dout_stride2:i32"]
// CHECK-SAME: kernel = "bwd_det_preprocess"
// CHECK-SAME: {args = ["q:tensormap", "k:tensormap", "v:tensormap", "dout:tensormap", "dk:tensormap", "dv:tensormap", "lse_log2:ptr", "delta:ptr", "dq_accum:ptr", "dq_semaphore:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "Nk:i32", "scale:f32"]
// CHECK-SAME: grid = ["ceildiv(Nk, 128)", "Hkv", "B"], kernel = "bwd_det"
// CHECK-SAME: {args = ["dq_accum:ptr", "dq:ptr", "B:i32", "Hq:i32", "Nq:i32", "scale:f32", "dq_stride0:i32", "dq_stride1:i32", "dq_stride2:i32"]
// CHECK-SAME: kernel = "bwd_det_convert"
// CHECK-SAME: workspaces = [{bytes = "B*Hq*ceildiv(Nq, 128)*128*4", name = "lse_log2"}, {bytes = "B*Hq*ceildiv(Nq, 128)*128*4", name = "delta"}, {bytes = "B*Hq*ceildiv(Nq, 128)*128*128*4", name = "dq_accum"}, {bytes = "B*Hq*ceildiv(Nq, 128)*2*4", name = "dq_semaphore"}]
// Preprocess: the f32 accumulator zeroed, then threads 0 and 1 zero the row
// block's 2 semaphores.
// CHECK: gpu.func @bwd_det_preprocess(%{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32)
// CHECK: vector.store
// CHECK: arith.cmpi ult, %{{.+}}, %c2_i32
// CHECK: memref.store %c0_i32{{.*}} : memref<{{[0-9]+}}xi32, 1>
// CHECK: gpu.return
// Main: four global pointers (shift, Δ, accumulator, semaphores).
// CHECK: llvm.func @bwd_det({{.*}}, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %[[SEM:.+]]: !llvm.ptr<1>, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: f32)
// CHECK: %[[X:.+]] = arith.index_castui %block_id_x
// The writer: per step k, Q tile numTiles − 1 − k; the wait for K/V tile
// j = blockIdx.x (its semaphore counts j reductions), the tile, the release.
// CHECK: nvvm.setmaxregister  decrease 24
// CHECK: arith.cmpi eq, %{{.+}}, %c32_i32
// CHECK: scf.for
// CHECK: scf.for %[[K:.+]] = %c0_i32
// CHECK: %[[LAST:.+]] = arith.subi %{{.+}}, %c1_i32
// CHECK-NEXT: arith.subi %[[LAST]], %[[K]]
// CHECK: llvm.getelementptr %[[SEM]]
// CHECK: scf.while
// CHECK-NEXT: "ld.acquire.gpu.global.u32 $0, [$1];"
// CHECK-NEXT: arith.cmpi slt, %{{.+}}, %[[X]]
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], $2;"
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.mbarrier.arrive
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0{{$}}
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// CHECK: "red.release.gpu.global.add.u32 [$0], $1;"
// CHECK: nvvm.cp.async.bulk.wait_group 0{{$}}
// The producer streams the Q tiles in the same order.
// CHECK: scf.for
// CHECK: scf.for %[[PK:.+]] = %c0_i32
// CHECK: arith.subi %{{.+}}, %[[PK]]
// The consumers: the unmasked Q tiles from the last, then the masked ones
// (the diagonal), both as steps k.
// CHECK: nvvm.setmaxregister  increase 240
// CHECK: scf.for {{.*}} iter_args
// CHECK: scf.for %[[CK:.+]] = %c0_i32{{.*}} iter_args
// CHECK: arith.subi %{{.+}}, %[[CK]]
// CHECK-NOT: arith.cmpi sle
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.cmpi sle
// CHECK-NOT: ld.acquire
// CHECK-NOT: red.release
// CHECK: llvm.return
