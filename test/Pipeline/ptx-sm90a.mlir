// REQUIRES: ptxas
// --flash-to-ptx="arch=sm_90a": PTX with TMA, mbarriers, wgmma and
// setmaxnreg, and the bundles of every shipped configuration (bf16/f16 ×
// D 64/128/256 × causal × LSE) assembled by ptxas -arch=sm_90a -v with no
// spill stores, spill loads or stack frame.

// RUN: rm -rf %t && flash-opt %s --flash-to-ptx="arch=sm_90a bundle-dir=%t/one" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/one/attention.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/one/attention.json
// PTX: .target sm_90a
// PTX: .entry attention(
// PTX-NEXT: .param .align 64 .b8 attention_param_0[128]
// PTX: mbarrier.init.shared.b64
// The producer and consumer branches may be laid out in either order.
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 24
// PTX-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 240
// PTX-DAG: mbarrier.try_wait.parity.shared.b64
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}} p, 1, 1, 1;
// PTX-DAG: ex2.approx.ftz.f32
// The defaults for D = 128: a persistent grid drawing tiles from a counter,
// and ping-pong between the two consumer warpgroups (named barriers).
// PTX-DAG: atom.global.add.u32
// PTX-DAG: atom.global.exch.b32
// PTX-DAG: bar.sync {{.*}}, 256;
// PTX-DAG: bar.arrive {{.*}}, {{.*}};
// The epilogue stores O through shared memory with TMA.
// PTX-DAG: fence.proxy.async.shared::cta
// PTX-DAG: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// PTX-DAG: cp.async.bulk.wait_group.read 0
// The launch plan: Q's tensor map (rank 3 over (D, Nq, B·Hq), 128-byte
// swizzle, a box of 64 columns by block_q rows), the tile counter from a
// workspace that the kernel leaves zeroed, the persistent grid's formula.
// JSON: "args": [
// JSON: "name": "q",
// JSON-NEXT: "tensor": "q",
// JSON-NEXT: "tensor_map": {
// JSON-NEXT: "box": [
// JSON-NEXT: 64,
// JSON-NEXT: 128,
// JSON-NEXT: 1
// JSON: "dims": [
// JSON-NEXT: "D",
// JSON-NEXT: "Nq",
// JSON-NEXT: [
// JSON-NEXT: "mul",
// JSON-NEXT: "B",
// JSON-NEXT: "Hq"
// JSON: "swizzle": "128B"
// JSON: "type": "tensormap"
// JSON: "name": "counter",
// JSON-NEXT: "type": "ptr",
// JSON-NEXT: "workspace": "tile_counter"
// JSON: "schedule": "#flash.schedule<arch = \"sm_90a\", block_q = 128, block_kv = 128, stages = 2, warps = 12>",
// JSON: "sm_90a": {
// JSON: "spill_loads": 0,
// JSON: "spill_stores": 0,
// JSON: "stack_frame": 0
// JSON: "grid": {
// JSON-NEXT: "kind": "persistent",
// JSON-NEXT: "x": [
// JSON-NEXT: "min",
// JSON: "SMs"
// JSON: "ceildiv",
// JSON-NEXT: "Nq",
// JSON-NEXT: 128
// JSON: "workspaces": [
// JSON-NEXT: {
// JSON-NEXT: "bytes": 4,
// JSON-NEXT: "init": "zero",
// JSON-NEXT: "kernel_restores": true,
// JSON-NEXT: "name": "tile_counter",
// JSON-NEXT: "scope": "stream"

// The schedule's fields can be overridden from the pipeline, K/V stages
// included (here three, where the model would take two).
// RUN: flash-opt %s --flash-to-ptx="arch=sm_90a block-q=128 block-kv=64 warps=12 stages=3 bundle-dir=%t/three" -o /dev/null
// RUN: FileCheck %s --check-prefix=STAGES < %t/three/attention.json
// STAGES: "schedule": "#flash.schedule<arch = \"sm_90a\", block_q = 128, block_kv = 64, stages = 3, warps = 12>",
// STAGES: "stages": 3,

// 24 configurations; where the kernel's form (the model's schedule, the
// lowering's choices) changes with the length it compiles one bundle per range
// (docs/gpu.md): D=64 causal 128x128 up to N=1024, 192x128 at 2048 and
// 192x128 in the grouped tile order from 4096; non-causal D=128 128x128 up to
// 4096 and 192x80 from 8192; non-causal D=256 128x64 at 512 and 128x80 from
// 1024; causal D=256 128x64 at 512 and 1024, 128x64 in the grouped tile order
// at 2048, 128x80 (grouped) from 4096: 48 bundles.
// RUN: %python -m flash_mlir.compile --out %t/shipped --arch sm_90a --ops forward > %t/compile.log
// RUN: %python -m flash_mlir.tools.check_bundles %t/shipped --expect 48 | FileCheck %s --check-prefix=SPILLS
// RUN: FileCheck %s --check-prefix=RANGES < %t/compile.log
// SPILLS-NOT: BAD
// SPILLS: 48 bundles, 0 bad
// RANGES: flash_fwd_sm_90a_bf16_d64.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d64_lse.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d64_causal_n512.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d64_causal_n2048.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d64_causal_n4096.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d64_causal_lse_n512.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d64_causal_lse_n2048.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d64_causal_lse_n4096.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d128_n512.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d128_n8192.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d128_lse_n512.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d128_lse_n8192.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d128_causal.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d128_causal_lse.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d256_n512.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d256_n1024.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d256_lse_n512.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d256_lse_n1024.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d256_causal_n512.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d256_causal_n2048.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d256_causal_n4096.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d256_causal_lse_n512.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d256_causal_lse_n2048.json
// RANGES-NEXT: flash_fwd_sm_90a_bf16_d256_causal_lse_n4096.json
// RANGES-NEXT: flash_fwd_sm_90a_f16_d64.json
// RANGES: 48 bundles in
func.func @attention(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>) -> (tensor<2x8x1000x128xbf16>, tensor<2x8x1000xf32>) {
  %o, %lse = flash.attention %q, %k, %v {causal}
      : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16> -> tensor<2x8x1000x128xbf16>, tensor<2x8x1000xf32>
  return %o, %lse : tensor<2x8x1000x128xbf16>, tensor<2x8x1000xf32>
}
