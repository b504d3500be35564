// RUN: flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s

// The sm_90a backward's kernels chained with programmatic dependent launch
// (SM90/BackwardKernel.h, docs/gpu.md "Backward on sm_90a"): the preprocess
// executes griddepcontrol.launch_dependents first thing; the main kernel,
// marked "programmatic_dependent_launch" in the plan, may then start while
// the preprocess's last blocks run: it initialises its barriers and loads K_j
// and V_j (the producer's first thread), and every thread that touches the
// preprocess's results waits (griddepcontrol.wait) before it does: the dQ
// writer (thread 32) before its first reduction into the accumulator, the
// producer after the K/V loads and before the first shift and Δ rows, the
// consumers after K/V have arrived. sm_80 has no programmatic dependent
// launch: its plans and kernels have none of it (ptx-sm80-backward.mlir,
// NOPDL).

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

// The plan: the preprocess in stream order, the main kernel behind it.
// CHECK: launches = [{args = {{.*}}kernel = "bwd_preprocess", threads = 128 : i64}
// CHECK-SAME: kernel = "bwd", producer_registers = 24 : i64, programmatic_dependent_launch = true, tensor_maps
// CHECK: gpu.func @bwd_preprocess(
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: nvvm.griddepcontrol
// The tensor maps are its first arguments: Q, K, V, dO, dK, dV.
// CHECK: llvm.func @bwd(%[[TMQ:[a-z0-9]+]]: !llvm.ptr {{[^}]*}}nvvm.grid_constant}, %[[TMK:[a-z0-9]+]]: !llvm.ptr {{[^}]*}}nvvm.grid_constant}, %[[TMV:[a-z0-9]+]]: !llvm.ptr {{[^}]*}}nvvm.grid_constant}, %[[TMDO:[a-z0-9]+]]: !llvm.ptr {{[^}]*}}nvvm.grid_constant},
// Barriers first, before any wait.
// CHECK-NOT: nvvm.griddepcontrol
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NOT: nvvm.griddepcontrol
// CHECK: nvvm.setmaxregister  decrease 24
// The dQ writer: the wait before its loops.
// CHECK: arith.cmpi eq, %{{.+}}, %c32_i32
// CHECK-NOT: scf.for
// CHECK: nvvm.griddepcontrol wait
// CHECK: scf.for
// CHECK: "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], $2;"
// The producer: K and V, then the wait, then the ring of Q, dO, shift, Δ.
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c65536_i32
// CHECK-NOT: nvvm.griddepcontrol
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMK]],
// CHECK-NOT: nvvm.griddepcontrol
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMV]],
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK: scf.for
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMDO]],
// CHECK: nvvm.cp.async.bulk.shared.cluster.global %{{.+}}, %{{.+}}, %{{.+}}, %c256_i32
// The consumers: after K/V have arrived, before their loops.
// CHECK: nvvm.setmaxregister  increase 240
// CHECK-NOT: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK: scf.for {{.*}} iter_args
// CHECK: llvm.return
// CHECK: gpu.func @bwd_convert(

// -----

// D = 256 (the consumers split the step by roles and add their dQ slices to
// the accumulator themselves): the consumers' wait comes before either
// role's loops.
func.func @bwd256(%q: tensor<1x4x300x256xbf16>, %k: tensor<1x2x270x256xbf16>, %v: tensor<1x2x270x256xbf16>, %o: tensor<1x4x300x256xbf16>, %do: tensor<1x4x300x256xbf16>, %lse: tensor<1x4x300xf32>) -> (tensor<1x4x300x256xbf16>, tensor<1x2x270x256xbf16>, tensor<1x2x270x256xbf16>) {
  %dq0 = tensor.empty() : tensor<1x4x300x256xbf16>
  %dk0 = tensor.empty() : tensor<1x2x270x256xbf16>
  %dv0 = tensor.empty() : tensor<1x2x270x256xbf16>
  %r:3 = scf.forall (%i) in (8) shared_outs(%a = %dq0, %b = %dk0, %c = %dv0) -> (tensor<1x4x300x256xbf16>, tensor<1x2x270x256xbf16>, tensor<1x2x270x256xbf16>) {
    scf.forall.in_parallel {
    }
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 4, kv_heads = 2, seq_q = 300, seq_kv = 270, head_dim = 256, value_dim = 256, causal = true, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 64, stages = 2, warps = 12>>}
  return %r#0, %r#1, %r#2 : tensor<1x4x300x256xbf16>, tensor<1x2x270x256xbf16>, tensor<1x2x270x256xbf16>
}
// CHECK-LABEL: gpu.module @bwd256_module
// CHECK: gpu.func @bwd256_preprocess(
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK: llvm.func @bwd256(
// No writer thread: the producer's wait after K and V.
// CHECK: nvvm.setmaxregister  decrease
// CHECK-NOT: scf.for
// CHECK: nvvm.griddepcontrol wait
// CHECK: scf.for
// CHECK: nvvm.setmaxregister  increase
// CHECK-NOT: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK: scf.if
// CHECK: scf.for
// CHECK: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
