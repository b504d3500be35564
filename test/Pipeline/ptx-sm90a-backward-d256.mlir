// REQUIRES: ptxas
// The D=256 backward on sm_90a through the whole pipeline (hand-written
// backward L1 -> flash-lower-to-nvgpu -> NVVM -> PTX -> bundles): the main
// kernel of SM90/BackwardKernel.cpp with its two consumer warpgroups sharing
// the 64 K/V rows of a tile (block_kv = 64) and splitting the 256 columns of
// dK, dV and dQ (splitsColumns) and the step's work by roles (splitsRoles),
// bf16/f16 × causal or not, and the
// deterministic plan at bf16 causal and f16; assembled by ptxas
// -arch=sm_90a -v with no spill stores, spill loads or stack frame in any
// kernel.

// RUN: rm -rf %t && flash-opt %s --flash-to-ptx="arch=sm_90a bundle-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/bwd_bf16_d256_causal.ptx
// RUN: FileCheck %s --check-prefix=PLAN < %t/bwd_bf16_d256_causal.json
// RUN: cat %t/*.json | FileCheck %s --check-prefix=NOSPILL
// RUN: cat %t/*.json | grep -c '"spill_stores": 0' | FileCheck %s --check-prefix=COUNT

// By roles (splitsRoles): Sᵀ (consumer 0) and dPᵀ (consumer 1) once each
// (SS m64n64, k = 256), dV and dK over all 256 columns (RS m64n256, from
// the Pᵀ and dSᵀ registers), no m64n128 GEMM; Pᵀ handed over as 8 16-byte
// stores and loads per thread; dQ (SS m64n64, each warpgroup 128 columns)
// staged per warp (16 × 32 f32) in a ring of two slice buffers, each slice
// added whole (2048 bytes, the blocked accumulator: blockedDQ) by one bulk
// reduction, never 128-byte rows, waiting only for the slice before
// (wait_group.read 1; no f32 atomics), dK and dV stored by TMA.
// PTX: .target sm_90a
// PTX-DAG: .entry bwd_bf16_d256_causal(
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX-DAG: st.shared.v4.{{[bf]}}32 [{{%rd[0-9]+}}+212992],
// PTX-DAG: ld.shared.v4.{{[bf]}}32 {{.*}}, [{{%rd[0-9]+}}+212992];
// PTX-DAG: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [{{%rd[0-9]+}}], [{{%r[0-9]+}}], 2048;
// PTX-DAG: cp.async.bulk.wait_group.read 1;
// PTX-DAG: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 240
// PTX-NOT: wgmma.mma_async.sync.aligned.m64n128k16
// RUN: FileCheck %s --check-prefix=NORED < %t/bwd_bf16_d256_causal.ptx
// NORED-NOT: red.relaxed.gpu.global.add.f32
// RUN: FileCheck %s --check-prefix=ROWS < %t/bwd_bf16_d256_causal.ptx
// ROWS-NOT: bulk_group.add.f32 [{{%rd[0-9]+}}], [{{%r[0-9]+}}], 128;

// The plan: K and V boxes of 64 rows, a grid over 64-row K/V tiles, 384
// threads; one dO slot, the slice rings, 16 KB of Pᵀ and its two
// mbarriers: 231,512 bytes of shared memory.
// PLAN: "name": "k",
// PLAN-NEXT: "tensor": "k",
// PLAN-NEXT: "tensor_map": {
// PLAN-NEXT: "box": [
// PLAN-NEXT: 64,
// PLAN-NEXT: 64,
// PLAN: "block": [
// PLAN-NEXT: 384,
// PLAN: "dynamic_shared_memory": 231512,
// PLAN: "name": "bwd_bf16_d256_causal",
// PLAN-NEXT: "programmatic_dependent_launch": true

// NOSPILL-NOT: "spill_stores": {{[1-9]}}
// NOSPILL-NOT: "spill_loads": {{[1-9]}}
// NOSPILL-NOT: "stack_frame": {{[1-9]}}
// 6 bundles × 3 kernels.
// COUNT: 18

// Deterministic: per step each warpgroup's leader waits for the Q tile's
// semaphore, the issuing lanes wait for their reductions to complete, every
// consumer thread fences, one releases.
// RUN: FileCheck %s --check-prefix=DET < %t/bwd_bf16_d256_causal_deterministic.ptx
// DET: .entry bwd_bf16_d256_causal_deterministic(
// DET: ld.acquire.gpu.global.u32
// DET: wgmma.mma_async.sync.aligned.m64n256k16
// DET: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
// DET: cp.async.bulk.wait_group 0
// DET: fence.acq_rel.gpu;
// DET: red.release.gpu.global.add.u32
// RUN: FileCheck %s --check-prefix=PTXNODET < %t/bwd_bf16_d256_causal.ptx
// PTXNODET-NOT: ld.acquire
// PTXNODET-NOT: red.release

func.func @bwd_bf16_d256(%q: tensor<2x8x1000x256xbf16>, %k: tensor<2x2x1000x256xbf16>, %v: tensor<2x2x1000x256xbf16>, %o: tensor<2x8x1000x256xbf16>, %do: tensor<2x8x1000x256xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = false, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 64, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>
}

func.func @bwd_bf16_d256_causal(%q: tensor<2x8x1000x256xbf16>, %k: tensor<2x2x1000x256xbf16>, %v: tensor<2x2x1000x256xbf16>, %o: tensor<2x8x1000x256xbf16>, %do: tensor<2x8x1000x256xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = true, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 64, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>
}

func.func @bwd_f16_d256(%q: tensor<2x8x1000x256xf16>, %k: tensor<2x2x1000x256xf16>, %v: tensor<2x2x1000x256xf16>, %o: tensor<2x8x1000x256xf16>, %do: tensor<2x8x1000x256xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = false, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 64, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>
}

func.func @bwd_f16_d256_causal(%q: tensor<2x8x1000x256xf16>, %k: tensor<2x2x1000x256xf16>, %v: tensor<2x2x1000x256xf16>, %o: tensor<2x8x1000x256xf16>, %do: tensor<2x8x1000x256xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = true, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 64, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>
}

func.func @bwd_bf16_d256_causal_deterministic(%q: tensor<2x8x1000x256xbf16>, %k: tensor<2x2x1000x256xbf16>, %v: tensor<2x2x1000x256xbf16>, %o: tensor<2x8x1000x256xbf16>, %do: tensor<2x8x1000x256xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = true, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 64, stages = 2, warps = 12>, deterministic = true>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>
}

func.func @bwd_f16_d256_deterministic(%q: tensor<2x8x1000x256xf16>, %k: tensor<2x2x1000x256xf16>, %v: tensor<2x2x1000x256xf16>, %o: tensor<2x8x1000x256xf16>, %do: tensor<2x8x1000x256xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = false, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 64, stages = 2, warps = 12>, deterministic = true>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>
}
