// RUN: flash-opt %s --split-input-file --flash-lower-to-nvgpu="arch=sm_80 shared-memory-per-block=232448" | FileCheck %s

// The sm_80 backward at D = 256 with Q tiles of 64 rows (block_kv = 64, 8
// warps; SM80/BackwardKernel.cpp): after Sᵀ and dPᵀ (the two roles'
// branches, 128 mma.sync each) and the gradient products (dV and dK, 2
// m-tiles × 8 n-tiles × 4 k-steps each: 128) dQ_i += dS·K_j in
// warp tiles of 32 query rows × 64 columns (buildRowPairDQ): per k-step two
// ldmatrix.trans of dS (the warp's two m-tiles, from the 64 × 128 exchange
// tile) before any MMA, then one of K (64 × 256) per 16 columns. Two stages: 32 columns a pass, two passes in a loop (2 m-tiles ×
// 4 n-tiles × 4 k-steps = 32 mma.sync and 32 atomics a pass); one stage: the
// next visit's loads after a barrier, then 64 columns in one pass (64 and
// 64). (Q tiles of 32 rows keep 16-row tiles: lower-to-nvgpu-backward-sm80.mlir.)

// CHECK-LABEL: gpu.func @two_stages_d256(
// CHECK: scf.for
// CHECK-COUNT-256: nvvm.mma.sync
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK-COUNT-128: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: scf.for
// CHECK: nvgpu.ldmatrix %{{.+}} {numTiles = 4 : i32, transpose = true} : memref<8192xbf16
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvgpu.ldmatrix %{{.+}} {numTiles = 4 : i32, transpose = true} : memref<8192xbf16
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvgpu.ldmatrix %{{.+}} {numTiles = 4 : i32, transpose = true} : memref<16384xbf16
// CHECK-COUNT-32: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK-COUNT-32: llvm.atomicrmw fadd
// CHECK-NOT: llvm.atomicrmw
// CHECK: scf.yield
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
func.func @two_stages_d256(%q: tensor<1x2x1000x256xbf16>, %k: tensor<1x1x1000x256xbf16>, %v: tensor<1x1x1000x256xbf16>, %o: tensor<1x2x1000x256xbf16>, %do: tensor<1x2x1000x256xbf16>, %lse: tensor<1x2x1000xf32>) -> (tensor<1x2x1000x256xbf16>, tensor<1x1x1000x256xbf16>, tensor<1x1x1000x256xbf16>) {
  %d0 = tensor.empty() : tensor<1x2x1000xf32>
  %delta = scf.forall (%b, %h) in (1, 2) shared_outs(%acc = %d0) -> (tensor<1x2x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<1x2x1000x256xbf16>
  %dk0 = tensor.empty() : tensor<1x1x1000x256xbf16>
  %dv0 = tensor.empty() : tensor<1x1x1000x256xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 1, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<1x2x1000x256xbf16>, tensor<1x1x1000x256xbf16>, tensor<1x1x1000x256xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 2, kv_heads = 1, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = false, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 8>>}
  return %dq, %dk, %dv : tensor<1x2x1000x256xbf16>, tensor<1x1x1000x256xbf16>, tensor<1x1x1000x256xbf16>
}

// -----

// CHECK-LABEL: gpu.func @one_stage_d256(
// CHECK: scf.for
// CHECK-COUNT-256: nvvm.mma.sync
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK-COUNT-128: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.barrier
// CHECK: nvgpu.device_async_copy
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvgpu.ldmatrix %{{.+}} {numTiles = 4 : i32, transpose = true} : memref<8192xbf16
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvgpu.ldmatrix %{{.+}} {numTiles = 4 : i32, transpose = true} : memref<8192xbf16
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvgpu.ldmatrix %{{.+}} {numTiles = 4 : i32, transpose = true} : memref<16384xbf16
// CHECK-COUNT-64: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK-COUNT-64: llvm.atomicrmw fadd
// CHECK-NOT: llvm.atomicrmw
// CHECK: gpu.return
func.func @one_stage_d256(%q: tensor<1x2x1000x256xbf16>, %k: tensor<1x1x1000x256xbf16>, %v: tensor<1x1x1000x256xbf16>, %o: tensor<1x2x1000x256xbf16>, %do: tensor<1x2x1000x256xbf16>, %lse: tensor<1x2x1000xf32>) -> (tensor<1x2x1000x256xbf16>, tensor<1x1x1000x256xbf16>, tensor<1x1x1000x256xbf16>) {
  %d0 = tensor.empty() : tensor<1x2x1000xf32>
  %delta = scf.forall (%b, %h) in (1, 2) shared_outs(%acc = %d0) -> (tensor<1x2x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<1x2x1000x256xbf16>
  %dk0 = tensor.empty() : tensor<1x1x1000x256xbf16>
  %dv0 = tensor.empty() : tensor<1x1x1000x256xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 1, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<1x2x1000x256xbf16>, tensor<1x1x1000x256xbf16>, tensor<1x1x1000x256xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 2, kv_heads = 1, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = true, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 1, warps = 8>>}
  return %dq, %dk, %dv : tensor<1x2x1000x256xbf16>, tensor<1x1x1000x256xbf16>, tensor<1x1x1000x256xbf16>
}
