// What the backward's GPU lowering cannot take is a located "not supported
// yet" diagnostic and a non-zero exit, never a crash or a wrong kernel.
// RUN: not flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_80 2>&1 | FileCheck %s --implicit-check-not="see current operation"
// RUN: not flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_90a 2>&1 | FileCheck %s --check-prefix=SM90 --implicit-check-not="see current operation"

// D = 256: a warp's 16 rows of dK and dV would take all its registers; two
// warps share them (block_kv = 8·warps).
// CHECK: lower-to-nvgpu-backward-errors.mlir:[[@LINE+6]]:19: error: not supported yet: D=256 backward block_kv = 64 with 4 warps (dK and dV of 16 K/V rows take 256 f32 registers per thread: two warps share them: block_kv = 32) on sm_80
func.func @d256(%q: tensor<1x1x64x256xbf16>, %k: tensor<1x1x64x256xbf16>, %v: tensor<1x1x64x256xbf16>, %o: tensor<1x1x64x256xbf16>, %do: tensor<1x1x64x256xbf16>, %lse: tensor<1x1x64xf32>) -> (tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>) {
  %d0 = tensor.empty() : tensor<1x1x64xf32>
  %delta = scf.forall (%b, %h) in (1, 1) shared_outs(%acc = %d0) -> (tensor<1x1x64xf32>) {
  } {flash.stage = "preprocess"}
  %e = tensor.empty() : tensor<1x1x64x256xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 1, 1) shared_outs(%a = %e, %c = %e, %f = %e) -> (tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 1, kv_heads = 1, seq_q = 64, seq_kv = 64, head_dim = 256, value_dim = 256, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>>}
  return %dq, %dk, %dv : tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>
}

// -----

// D = 256 with Q tiles of 64 rows: K, V, Q and dO double-buffered beside
// the exchange and probs tiles take more than an A100's 163 KB (one stage
// fits, 164,352 bytes; so does block_q = 32 with two).
// CHECK: lower-to-nvgpu-backward-errors.mlir:[[@LINE+6]]:19: error: not supported yet: 230400 bytes of shared memory in the backward (166912 per block) on sm_80
func.func @d256_smem(%q: tensor<1x1x64x256xbf16>, %k: tensor<1x1x64x256xbf16>, %v: tensor<1x1x64x256xbf16>, %o: tensor<1x1x64x256xbf16>, %do: tensor<1x1x64x256xbf16>, %lse: tensor<1x1x64xf32>) -> (tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>) {
  %d0 = tensor.empty() : tensor<1x1x64xf32>
  %delta = scf.forall (%b, %h) in (1, 1) shared_outs(%acc = %d0) -> (tensor<1x1x64xf32>) {
  } {flash.stage = "preprocess"}
  %e = tensor.empty() : tensor<1x1x64x256xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 1, 1) shared_outs(%a = %e, %c = %e, %f = %e) -> (tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 1, kv_heads = 1, seq_q = 64, seq_kv = 64, head_dim = 256, value_dim = 256, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 8>>}
  return %dq, %dk, %dv : tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>
}

// -----

// D = 256, Q tiles of 128 rows: Sᵀ and dPᵀ beside a warp's half of dK and dV
// CHECK: lower-to-nvgpu-backward-errors.mlir:[[@LINE+6]]:19: error: not supported yet: backward block_q = 128 at D = 256 (Sᵀ, dPᵀ, dK and dV of a warp's 16 keys would take 256 f32 registers per thread; 192 fit) on sm_80
func.func @d256_regs(%q: tensor<1x1x64x256xbf16>, %k: tensor<1x1x64x256xbf16>, %v: tensor<1x1x64x256xbf16>, %o: tensor<1x1x64x256xbf16>, %do: tensor<1x1x64x256xbf16>, %lse: tensor<1x1x64xf32>) -> (tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>) {
  %d0 = tensor.empty() : tensor<1x1x64xf32>
  %delta = scf.forall (%b, %h) in (1, 1) shared_outs(%acc = %d0) -> (tensor<1x1x64xf32>) {
  } {flash.stage = "preprocess"}
  %e = tensor.empty() : tensor<1x1x64x256xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 1, 1) shared_outs(%a = %e, %c = %e, %f = %e) -> (tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 1, kv_heads = 1, seq_q = 64, seq_kv = 64, head_dim = 256, value_dim = 256, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 128, block_kv = 64, stages = 2, warps = 8>>}
  return %dq, %dk, %dv : tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>, tensor<1x1x64x256xbf16>
}

// -----

// An sm_90a schedule is sm_90a's kernel (SM90/BackwardKernel.cpp, pinned by
// lower-to-nvgpu-backward-sm90a.mlir), not sm_80's.
// CHECK: lower-to-nvgpu-backward-errors.mlir:[[@LINE+7]]:19: error: the kernel's schedule is for sm_90a, not sm_80 (select the schedule for sm_80)
// SM90: gpu.module @hopper_module
func.func @hopper(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>, %o: tensor<1x1x64x64xbf16>, %do: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  %d0 = tensor.empty() : tensor<1x1x64xf32>
  %delta = scf.forall (%b, %h) in (1, 1) shared_outs(%acc = %d0) -> (tensor<1x1x64xf32>) {
  } {flash.stage = "preprocess"}
  %e = tensor.empty() : tensor<1x1x64x64xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 1, 1) shared_outs(%a = %e, %c = %e, %f = %e) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 1, kv_heads = 1, seq_q = 64, seq_kv = 64, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
}

// -----

// Tiles the kernel does not take: each warp owns 16 K/V rows; Q tiles of 64 rows; 4 or 8 warps; two stages.
// CHECK: lower-to-nvgpu-backward-errors.mlir:[[@LINE+6]]:19: error: not supported yet: backward block_kv = 128 with 4 warps (each warp owns 16 K/V rows: block_kv = 64) on sm_80
func.func @block_kv(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>, %o: tensor<1x1x64x64xbf16>, %do: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  %d0 = tensor.empty() : tensor<1x1x64xf32>
  %delta = scf.forall (%b, %h) in (1, 1) shared_outs(%acc = %d0) -> (tensor<1x1x64xf32>) {
  } {flash.stage = "preprocess"}
  %e = tensor.empty() : tensor<1x1x64x64xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 1, 1) shared_outs(%a = %e, %c = %e, %f = %e) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 1, kv_heads = 1, seq_q = 64, seq_kv = 64, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 128, stages = 2, warps = 4>>}
  return %dq, %dk, %dv : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
}

// -----

// CHECK: lower-to-nvgpu-backward-errors.mlir:[[@LINE+6]]:19: error: not supported yet: backward block_q = 32 (the kernel visits Q tiles of 64 or 128 rows; 32 or 64 at D = 256) on sm_80
func.func @block_q(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>, %o: tensor<1x1x64x64xbf16>, %do: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  %d0 = tensor.empty() : tensor<1x1x64xf32>
  %delta = scf.forall (%b, %h) in (1, 1) shared_outs(%acc = %d0) -> (tensor<1x1x64xf32>) {
  } {flash.stage = "preprocess"}
  %e = tensor.empty() : tensor<1x1x64x64xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 1, 1) shared_outs(%a = %e, %c = %e, %f = %e) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 1, kv_heads = 1, seq_q = 64, seq_kv = 64, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 32, block_kv = 64, stages = 2, warps = 4>>}
  return %dq, %dk, %dv : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
}

// -----

// CHECK: lower-to-nvgpu-backward-errors.mlir:[[@LINE+6]]:19: error: not supported yet: backward block_q = 128 at D = 128 (Sᵀ, dPᵀ, dK and dV of a warp's 16 keys would take 256 f32 registers per thread; 192 fit) on sm_80
func.func @block_q_d128(%q: tensor<1x1x64x128xbf16>, %k: tensor<1x1x64x128xbf16>, %v: tensor<1x1x64x128xbf16>, %o: tensor<1x1x64x128xbf16>, %do: tensor<1x1x64x128xbf16>, %lse: tensor<1x1x64xf32>) -> (tensor<1x1x64x128xbf16>, tensor<1x1x64x128xbf16>, tensor<1x1x64x128xbf16>) {
  %d0 = tensor.empty() : tensor<1x1x64xf32>
  %delta = scf.forall (%b, %h) in (1, 1) shared_outs(%acc = %d0) -> (tensor<1x1x64xf32>) {
  } {flash.stage = "preprocess"}
  %e = tensor.empty() : tensor<1x1x64x128xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 1, 1) shared_outs(%a = %e, %c = %e, %f = %e) -> (tensor<1x1x64x128xbf16>, tensor<1x1x64x128xbf16>, tensor<1x1x64x128xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 1, kv_heads = 1, seq_q = 64, seq_kv = 64, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 128, block_kv = 128, stages = 2, warps = 8>>}
  return %dq, %dk, %dv : tensor<1x1x64x128xbf16>, tensor<1x1x64x128xbf16>, tensor<1x1x64x128xbf16>
}

// -----

// CHECK: lower-to-nvgpu-backward-errors.mlir:[[@LINE+6]]:19: error: not supported yet: a backward kernel of 2 warps (4 or 8) on sm_80
func.func @two_warps(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>, %o: tensor<1x1x64x64xbf16>, %do: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  %d0 = tensor.empty() : tensor<1x1x64xf32>
  %delta = scf.forall (%b, %h) in (1, 1) shared_outs(%acc = %d0) -> (tensor<1x1x64xf32>) {
  } {flash.stage = "preprocess"}
  %e = tensor.empty() : tensor<1x1x64x64xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 1, 1) shared_outs(%a = %e, %c = %e, %f = %e) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 1, kv_heads = 1, seq_q = 64, seq_kv = 64, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 32, stages = 2, warps = 2>>}
  return %dq, %dk, %dv : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
}

// -----

// One stage only at D = 256 (where the next visit's Q and dO load during
// dQ of 64 queries × 64 keys; at D ≤ 128 the kernel double-buffers).
// CHECK: lower-to-nvgpu-backward-errors.mlir:[[@LINE+6]]:19: error: not supported yet: 1 stages in the backward (it double-buffers Q and dO; one stage at D = 256) on sm_80
func.func @one_stage(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>, %o: tensor<1x1x64x64xbf16>, %do: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  %d0 = tensor.empty() : tensor<1x1x64xf32>
  %delta = scf.forall (%b, %h) in (1, 1) shared_outs(%acc = %d0) -> (tensor<1x1x64xf32>) {
  } {flash.stage = "preprocess"}
  %e = tensor.empty() : tensor<1x1x64x64xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 1, 1) shared_outs(%a = %e, %c = %e, %f = %e) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 1, kv_heads = 1, seq_q = 64, seq_kv = 64, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 1, warps = 4>>}
  return %dq, %dk, %dv : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
}

// -----

// A backward function takes Q, K, V, O, dO and LSE.
// CHECK: lower-to-nvgpu-backward-errors.mlir:[[@LINE+1]]:1: error: not supported yet: a backward kernel function must take exactly Q, K, V, O, dO and LSE
func.func @three_args(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  %e = tensor.empty() : tensor<1x1x64x64xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 1, 1) shared_outs(%a = %e, %c = %e, %f = %e) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 1, kv_heads = 1, seq_q = 64, seq_kv = 64, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>>}
  return %dq, %dk, %dv : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
}

// -----

// It returns the descriptor loop's dQ, dK, dV.
// CHECK: lower-to-nvgpu-backward-errors.mlir:[[@LINE+8]]:3: error: not supported yet: the function must return exactly the attention's results (dQ, dK, dV of the descriptor's loop, or the dq_convert loop's dQ and the descriptor loop's dK, dV)
func.func @swapped(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>, %o: tensor<1x1x64x64xbf16>, %do: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  %d0 = tensor.empty() : tensor<1x1x64xf32>
  %delta = scf.forall (%b, %h) in (1, 1) shared_outs(%acc = %d0) -> (tensor<1x1x64xf32>) {
  } {flash.stage = "preprocess"}
  %e = tensor.empty() : tensor<1x1x64x64xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 1, 1) shared_outs(%a = %e, %c = %e, %f = %e) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 1, kv_heads = 1, seq_q = 64, seq_kv = 64, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>>}
  return %dk, %dq, %dv : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
}

// -----

// Only the preprocess stage is known.
// CHECK: lower-to-nvgpu-backward-errors.mlir:[[@LINE+3]]:12: error: not supported yet: a loop of flash.stage = "postprocess" (the backward's GPU lowering rebuilds the "preprocess" and "dq_convert" stages)
func.func @other_stage(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>, %o: tensor<1x1x64x64xbf16>, %do: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  %d0 = tensor.empty() : tensor<1x1x64xf32>
  %delta = scf.forall (%b, %h) in (1, 1) shared_outs(%acc = %d0) -> (tensor<1x1x64xf32>) {
  } {flash.stage = "postprocess"}
  %e = tensor.empty() : tensor<1x1x64x64xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (1, 1, 1) shared_outs(%a = %e, %c = %e, %f = %e) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 1, kv_heads = 1, seq_q = 64, seq_kv = 64, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>>}
  return %dq, %dk, %dv : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
}

// -----

// Stage loops belong to the backward.
// CHECK: lower-to-nvgpu-backward-errors.mlir:[[@LINE+3]]:12: error: not supported yet: a stage loop around a forward attention (preprocess and dq_convert loops belong to the backward)
func.func @forward_stage(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %d0 = tensor.empty() : tensor<1x1x64xf32>
  %delta = scf.forall (%b, %h) in (1, 1) shared_outs(%acc = %d0) -> (tensor<1x1x64xf32>) {
  } {flash.stage = "preprocess"}
  %e = tensor.empty() : tensor<1x1x64x64xbf16>
  %o = scf.forall (%b, %h, %j) in (1, 1, 1) shared_outs(%a = %e) -> (tensor<1x1x64x64xbf16>) {
  } {flash.kernel = #flash.kernel<kind = forward, element_type = bf16, batch = 1, q_heads = 1, kv_heads = 1, seq_q = 64, seq_kv = 64, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>>}
  return %o : tensor<1x1x64x64xbf16>
}
