// REQUIRES: ptxas
// The D=256 sm_90a backward in a cluster of two blocks (schedule block_kv =
// 128: two blocks of the 64-row form, SM90/BackwardKernel.cpp, "the
// cluster's dQ"): neighbouring K/V tiles of one (batch, kv-head) in one
// cluster (.reqnctapercluster 2, 1, 1), which add their dQ of a Q tile
// through distributed shared memory (mapa, st.shared::cluster, mbarriers
// arrived on at cluster scope) before the bulk reductions, each block half
// of the slices; bf16 causal or not and f16 causal, assembled by ptxas
// -arch=sm_90a -v with no spill stores, spill loads or stack frame.

// RUN: rm -rf %t && flash-opt %s --flash-to-ptx="arch=sm_90a bundle-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/cl_bf16_d256_causal.ptx
// RUN: FileCheck %s --check-prefix=PLAN < %t/cl_bf16_d256_causal.json
// RUN: cat %t/*.json | FileCheck %s --check-prefix=NOSPILL
// RUN: cat %t/*.json | grep -c '"spill_stores": 0' | FileCheck %s --check-prefix=COUNT
// RUN: not flash-opt %s --flash-to-ptx="arch=sm_90a bundle-dir=%t/bm batch-maps=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BATCHMAPS

// Rank-4 tensor maps were not run on a GPU with the cluster's exchange:
// BATCHMAPS: error: not supported yet: batch-maps with the sm_90a backward in a cluster of two blocks (block_kv = 128 at D=256)

// PTX: .target sm_90a
// PTX: .entry cl_bf16_d256_causal(
// PTX: .explicitcluster
// PTX-NEXT: .reqnctapercluster 2, 1, 1
// PTX: barrier.cluster.arrive.release;
// PTX-NEXT: barrier.cluster.wait.acquire;
// The wgmma descriptors take the 14-bit address field only (the block's
// rank in the cluster sits above bit 24 of a shared address).
// PTX-DAG: bfe.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, 4, 14;
// PTX-DAG: mapa.shared::cluster.u32
// PTX-DAG: st.shared::cluster.v2.f32
// PTX-DAG: mbarrier.arrive.release.cluster.shared::cluster.b64
// PTX-DAG: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64
// Each slice (exchanged or added alone) by one 2048-byte bulk reduction
// into the blocked accumulator (blockedDQ).
// PTX-DAG: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [{{%rd[0-9]+}}], [{{%r[0-9]+}}], 2048;
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX: barrier.cluster.arrive.release;
// PTX-NEXT: barrier.cluster.wait.acquire;
// PTX-NOT: red.relaxed.gpu.global.add.f32

// The plan: boxes of 64 K/V rows per block, an even number of blocks along
// x (a cluster per 128 K/V rows), 384 threads.
// PLAN: "name": "k",
// PLAN-NEXT: "tensor": "k",
// PLAN-NEXT: "tensor_map": {
// PLAN-NEXT: "box": [
// PLAN-NEXT: 64,
// PLAN-NEXT: 64,
// PLAN: "block": [
// PLAN-NEXT: 384,
// PLAN: "grid": {
// PLAN-NEXT: "kind": "tiles",
// PLAN-NEXT: "x": [
// PLAN-NEXT: "mul",
// PLAN-NEXT: 2,
// PLAN-NEXT: [
// PLAN-NEXT: "ceildiv",
// PLAN-NEXT: "Nk",
// PLAN-NEXT: 128
// PLAN: "name": "cl_bf16_d256_causal",
// PLAN-NEXT: "programmatic_dependent_launch": true

// NOSPILL-NOT: "spill_stores": {{[1-9]}}
// NOSPILL-NOT: "spill_loads": {{[1-9]}}
// NOSPILL-NOT: "stack_frame": {{[1-9]}}
// 3 bundles × 3 kernels.
// COUNT: 9

func.func @cl_bf16_d256(%q: tensor<2x8x1000x256xbf16>, %k: tensor<2x2x1000x256xbf16>, %v: tensor<2x2x1000x256xbf16>, %o: tensor<2x8x1000x256xbf16>, %do: tensor<2x8x1000x256xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = false, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>
}

func.func @cl_bf16_d256_causal(%q: tensor<2x8x1000x256xbf16>, %k: tensor<2x2x1000x256xbf16>, %v: tensor<2x2x1000x256xbf16>, %o: tensor<2x8x1000x256xbf16>, %do: tensor<2x8x1000x256xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = true, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>
}

func.func @cl_f16_d256_causal(%q: tensor<2x8x1000x256xf16>, %k: tensor<2x2x1000x256xf16>, %v: tensor<2x2x1000x256xf16>, %o: tensor<2x8x1000x256xf16>, %do: tensor<2x8x1000x256xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = true, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>
}
