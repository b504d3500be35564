// REQUIRES: ptxas
// --flash-to-ptx="arch=sm_100a" (the forward; never run: no Blackwell GPU
// here): PTX 8.6 with TMA, mbarriers, tensor memory and tcgen05.mma, and the
// bundles of every shipped configuration (bf16/f16 × D 64/128/256 × causal
// × LSE) assembled by ptxas -arch=sm_100a -v with no spill stores, spill
// loads or stack frame.

// RUN: rm -rf %t && flash-opt %s --flash-to-ptx="arch=sm_100a bundle-dir=%t/one" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/one/attention.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/one/attention.json
// PTX: .version 8.6
// PTX: .target sm_100a
// PTX: .entry attention(
// PTX-NEXT: .param .align 64 .b8 attention_param_0[128]
// PTX-DAG: mbarrier.init.shared.b64
// PTX-DAG: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// PTX-DAG: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned
// PTX-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: tcgen05.mma.cta_group::1.kind::f16
// PTX-DAG: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// PTX-DAG: tcgen05.ld.sync.aligned.32x32b.x64.b32
// PTX-DAG: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX-DAG: tcgen05.st.sync.aligned.32x32b.x64.b32
// PTX-DAG: tcgen05.wait::ld.sync.aligned
// PTX-DAG: tcgen05.wait::st.sync.aligned
// PTX-DAG: tcgen05.fence::before_thread_sync
// PTX-DAG: tcgen05.fence::after_thread_sync
// PTX-DAG: tcgen05.dealloc.cta_group::1.sync.aligned.b32
// PTX-DAG: ex2.approx.ftz.f32
// The polynomial exp2 beside it (one column in five): the clamp keeping NaN,
// the rounding add of 1.5·2^23 (0f4B400000) and its undoing, the cubic's
// fma with c3, c2, c1 (0f3D6150AE, 0f3E7805FF, 0f3F317AFD) and 1, 2^j from
// its bits ((t << 23) + bits(1.0)) and the product. Explicit .rn: ptxas
// neither contracts nor reassociates.
// PTX-DAG: max.NaN.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0fC2FE0000;
// PTX-DAG: add.rn.f32 %r[[T:[0-9]+]], %r{{[0-9]+}}, 0f4B400000;
// PTX-DAG: add.rn.f32 %r{{[0-9]+}}, %r[[T]], 0fCB400000;
// PTX-DAG: fma.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0f3D6150AE, 0f3E7805FF;
// PTX-DAG: fma.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, 0f3F317AFD;
// PTX-DAG: fma.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, 0f3F800000;
// PTX-DAG: shl.b32 %r[[JB:[0-9]+]], %r[[T]], 23;
// PTX-DAG: add.s32 %r{{[0-9]+}}, %r[[JB]], 1065353216;
// PTX-DAG: mul.rn.f32
// JSON: "args": [
// JSON: "name": "q",
// JSON-NEXT: "tensor": "q",
// JSON-NEXT: "tensor_map": {
// JSON: "name": "o",
// JSON-NEXT: "tensor": "o",
// JSON-NEXT: "tensor_map": {
// JSON: "box": [
// JSON-NEXT: 64,
// JSON-NEXT: 128,
// JSON-NEXT: 1
// JSON: "type": "tensormap"
// Two 128-row Q tiles per block (D = 64: 2·(64 + 128) = 384 columns,
// allocated as 512) with the correction warpgroup, the setmaxnreg split
// (softmax, correction, TMA/MMA) in PTX and in the plan, O by TMA stores.
// PTX-DAG: .maxntid 512, 1, 1
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 184;
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 88;
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 56;
// PTX-DAG: fence.proxy.async.shared::cta;
// PTX-DAG: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// PTX-DAG: cp.async.bulk.commit_group;
// PTX-DAG: cp.async.bulk.wait_group.read 0;
// JSON: "correction_warpgroup": true,
// JSON: "q_tiles": 2,
// JSON: "schedule": "#flash.schedule<arch = \"sm_100a\", block_q = 256, block_kv = 128, stages = {{[23]}}, warps = 16>",
// JSON-NEXT: "setmaxnreg": [
// JSON-NEXT: 184,
// JSON-NEXT: 88,
// JSON-NEXT: 56
// JSON: "tensor_memory_columns": 512,
// JSON-NEXT: "threads": 512,
// JSON: "sm_100a": {
// JSON: "spill_loads": 0,
// JSON: "spill_stores": 0,
// JSON: "stack_frame": 0
// JSON: "grid": {
// JSON-NEXT: "kind": "tiles",

// Every shipped configuration, one bundle per range where the model's tile
// changes with the length.
// RUN: %python -m flash_mlir.compile --out %t/shipped --arch sm_100a --ops forward > %t/compile.log
// RUN: %python -m flash_mlir.tools.check_bundles %t/shipped --expect 24 | FileCheck %s --check-prefix=SPILLS
// SPILLS-NOT: BAD
// SPILLS: bundles, 0 bad
func.func @attention(%q: tensor<2x8x1000x64xbf16>, %k: tensor<2x2x1000x64xbf16>, %v: tensor<2x2x1000x64xbf16>) -> (tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>) {
  %o, %lse = flash.attention %q, %k, %v {causal}
      : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16> -> tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>
  return %o, %lse : tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>
}
