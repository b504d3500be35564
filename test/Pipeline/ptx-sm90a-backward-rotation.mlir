// REQUIRES: ptxas
// The sm_90a backward's rotated Q-tile order (SM90/BackwardKernel.h,
// kBackwardRotateMaxQTiles; docs/gpu.md): at D = 128, non-causal, with dQ
// through f32 reductions, K/V tile j visits its head's Q tiles from tile
// j mod numTiles on (when the head has at most 64 Q tiles, else from tile
// 0), so that the blocks of one head that run together reduce into
// different dQ tiles. The producer's loads and the dQ writer's reductions
// take the step's tile as (step + rotation) mod numTiles, whose tile times
// Br = 64 is the tile's first row. Causal plans (already staggered by the
// diagonal), deterministic plans (a fixed order) and D = 64 keep the order
// from tile 0: no division by the tile count.

// RUN: rm -rf %t && flash-opt %s --flash-to-ptx="arch=sm_90a bundle-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=ROT < %t/bwd_bf16_d128.ptx
// RUN: FileCheck %s --check-prefix=FROM0 < %t/bwd_bf16_d128_causal.ptx
// RUN: FileCheck %s --check-prefix=FROM0 < %t/bwd_bf16_d128_det.ptx
// RUN: FileCheck %s --check-prefix=FROM0 < %t/bwd_bf16_d64.ptx
// RUN: cat %t/*.json | FileCheck %s --check-prefix=NOSPILL

// ROT: .entry bwd_bf16_d128(
// ROT: rem.u32 [[T:%r[0-9]+]], {{%r[0-9]+}}, [[N:%r[0-9]+]];
// ROT-NEXT: shl.b32 {{%r[0-9]+}}, [[T]], 6;
// ROT: rem.u32 [[T2:%r[0-9]+]], {{%r[0-9]+}}, [[N]];
// ROT: .entry bwd_bf16_d128_convert(

// FROM0: .entry bwd_{{[a-z0-9_]+}}_preprocess(
// FROM0-NOT: rem.u32
// FROM0: .entry bwd_{{[a-z0-9_]+}}_convert(

// NOSPILL-NOT: "spill_stores": {{[1-9]}}
// NOSPILL-NOT: "spill_loads": {{[1-9]}}
// NOSPILL-NOT: "stack_frame": {{[1-9]}}

func.func @bwd_bf16_d64(%q: tensor<2x8x1000x64xbf16>, %k: tensor<2x2x1000x64xbf16>, %v: tensor<2x2x1000x64xbf16>, %o: tensor<2x8x1000x64xbf16>, %do: tensor<2x8x1000x64xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x64xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x64xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x64xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 8) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>
}

func.func @bwd_bf16_d128(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>, %o: tensor<2x8x1000x128xbf16>, %do: tensor<2x8x1000x128xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x128xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 8) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 0.0883883461 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>
}

func.func @bwd_bf16_d128_causal(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>, %o: tensor<2x8x1000x128xbf16>, %do: tensor<2x8x1000x128xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x128xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 8) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = true, lse = false, scale = 0.0883883461 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>
}

func.func @bwd_bf16_d128_det(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>, %o: tensor<2x8x1000x128xbf16>, %do: tensor<2x8x1000x128xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x128xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 8) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 0.0883883461 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>, deterministic = true>}
  return %dq, %dk, %dv : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>
}
