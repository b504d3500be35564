// RUN: flash-opt %s --flash-to-ptx=arch=sm_90a | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: flash-opt %s --flash-to-ptx="arch=sm_80 max-splits=256" | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: flash-opt %s --flash-to-ptx="arch=sm_90a split-kv=false" | FileCheck %s --check-prefix=FORWARD

// The dialect to the decode kernels: a few-row flash.attention (contiguous
// cache) and flash.paged_attention go through --flash-to-ptx as they are.
// flash-select-schedule records the split-KV kernels' tiles
// (splitKVTileShape, include/flash/Target/SplitKV.h), flash-tile builds the
// split-KV form (its split loop carries the #flash.kernel descriptor, the
// merge loop's results are the function's: Q is packed and O unpacked inside
// the loops), and flash-lower-to-nvgpu builds the decode kernel (split and
// last-block merge) from the descriptor: the same L1 runs on the CPU
// (--flash-cpu-pipeline) and one split-count rule serves both.

// The launch contracts: the few-row attention's (causal, LSE; GQA 32/8, one
// row tile of 16) and the paged one's (page size 16, f16, D = 64, GQA 4 × 2
// queries), each with the schedule it was built from. The stages are what
// half an SM holds (sm_90a: 3 at D = 128 bf16, 6 at D = 64; sm_80: 2 and
// 4); max_splits is the SM count unless given.
// CHECK: module attributes {flash.kernels = [{arch = "sm_{{80|90a}}", block_kv = 64 : i64, block_q = 16 : i64, causal = true
// CHECK-SAME: kernel = "decode"
// SM90-SAME: max_splits = 132 : i64, op = "attention_split_kv", page_size = 0 : i64
// SM80-SAME: max_splits = 256 : i64, op = "attention_split_kv", page_size = 0 : i64
// SM90-SAME: schedule = #flash.schedule<arch = "sm_90a", block_q = 16, block_kv = 64, stages = 3, warps = 4, max_splits = 132>, stages = 3 : i64
// SM80-SAME: schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 64, stages = 2, warps = 4, max_splits = 256>, stages = 2 : i64
// CHECK-SAME: writes_lse = true}
// CHECK-SAME: kernel = "paged"
// CHECK-SAME: op = "paged_attention", page_size = 16 : i64
// SM90-SAME: schedule = #flash.schedule<arch = "sm_90a", block_q = 16, block_kv = 64, stages = 6, warps = 4, max_splits = 132>
// SM80-SAME: schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 64, stages = 4, warps = 4, max_splits = 256>
// CHECK-SAME: writes_lse = false}]
// The kernels: K/V gathered by cp.async (sm_90a: under an L2 policy,
// decodeKVEvictFirstBytes; sm_80: without a policy), mma.sync, the count
// of finished parts and the last block's merge.
// CHECK: gpu.binary @decode_module
// SM90-SAME: .target sm_90a
// SM80-SAME: .target sm_80
// CHECK-SAME: .entry decode(
// CHECK-SAME: cp.async.cg.shared.global
// SM90-SAME: cp.async.cg.shared.global.L2::cache_hint
// SM80-NOT: cache_hint
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-SAME: atom.acq_rel.gpu.global.add.u32
// sm_90a's separate merge (at most 8 work units; Target/SplitKV.h): its
// split kernel triggers the merge kernel, which waits for the split grid
// first; sm_80 has neither (no programmatic dependent launch).
// SM90-SAME: .entry decode_separate(
// SM90-SAME: griddepcontrol.launch_dependents;
// SM90-SAME: .entry decode_merge(
// SM90-SAME: griddepcontrol.wait;
// SM90-SAME: ld.volatile.global.v4.b32
// SM80-NOT: griddepcontrol
// SM80-NOT: decode_merge
// CHECK: gpu.binary @paged_module
// CHECK-SAME: .entry paged(
// CHECK-SAME: cp.async.cg.shared.global
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// With split-kv=false the few-row attention is the forward kernel (one
// block per q-head); flash.paged_attention is always split.
// FORWARD: op = "paged_attention"
// FORWARD: gpu.binary @decode_module
// FORWARD-SAME: wgmma.mma_async
// FORWARD: gpu.binary @paged_module
// FORWARD-SAME: mma.sync.aligned
func.func @decode(%q: tensor<4x32x1x128xbf16>, %k: tensor<4x8x8192x128xbf16>, %v: tensor<4x8x8192x128xbf16>) -> (tensor<4x32x1x128xbf16>, tensor<4x32x1xf32>) {
  %o, %l = flash.attention %q, %k, %v {causal} : tensor<4x32x1x128xbf16>, tensor<4x8x8192x128xbf16>, tensor<4x8x8192x128xbf16> -> tensor<4x32x1x128xbf16>, tensor<4x32x1xf32>
  return %o, %l : tensor<4x32x1x128xbf16>, tensor<4x32x1xf32>
}

func.func @paged(%q: tensor<2x8x2x64xf16>, %kc: tensor<40x16x2x64xf16>, %vc: tensor<40x16x2x64xf16>, %bt: tensor<2x20xi32>, %sl: tensor<2xi32>) -> tensor<2x8x2x64xf16> {
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl {causal, scale = 0.125 : f32} : tensor<2x8x2x64xf16>, tensor<40x16x2x64xf16>, tensor<40x16x2x64xf16>, tensor<2x20xi32>, tensor<2xi32> -> tensor<2x8x2x64xf16>
  return %o : tensor<2x8x2x64xf16>
}
