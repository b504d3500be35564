// REQUIRES: ptxas
// --flash-to-ptx="arch=sm_80": the whole pipeline from flash.attention to a
// gpu.binary holding PTX, and the bundles of every shipped configuration
// (bf16/f16 × D 64/128/256 × causal × LSE) assembled by ptxas -arch=sm_80 -v
// with no spill stores, spill loads or stack frame.

// RUN: flash-opt %s --flash-to-ptx="arch=sm_80" | FileCheck %s
// CHECK: gpu.binary @attention_module
// CHECK-SAME: #gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-NOT: func.func @attention

// RUN: rm -rf %t && flash-opt %s --flash-to-ptx="arch=sm_80 bundle-dir=%t/one" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/one/attention.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/one/attention.json
// PTX: .target sm_80
// PTX: .entry attention(
// PTX: cp.async.cg.shared.global
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: shfl.sync.bfly.b32
// PTX: ex2.approx
// The launch plan (docs/launch-plan.md): the grid as a formula, the arguments
// in the kernel's order with what fills each, the files with ptxas's report.
// JSON: "format": "flash-launch-plan",
// JSON: "kernels": [
// JSON: "args": [
// JSON: "name": "q",
// JSON-NEXT: "tensor": "q",
// JSON-NEXT: "type": "ptr"
// JSON: "name": "scale",
// JSON-NEXT: "type": "f32",
// JSON-NEXT: "value": "scale"
// JSON: "dynamic_shared_memory": 49152,
// JSON: "cubins": {
// JSON-NEXT: "sm_80": {
// JSON-NEXT: "file": "attention.sm_80.cubin",
// JSON-NEXT: "registers": {{[0-9]+}},
// JSON-NEXT: "spill_loads": 0,
// JSON-NEXT: "spill_stores": 0,
// JSON-NEXT: "stack_frame": 0
// JSON: "grid": {
// JSON-NEXT: "kind": "tiles",
// JSON-NEXT: "x": [
// JSON-NEXT: "ceildiv",
// JSON-NEXT: "Nq",
// JSON-NEXT: 128
// JSON: "y": "Hq",
// JSON-NEXT: "z": "B"
// JSON: "select": {
// JSON-NEXT: "arch": "sm_80",
// JSON-NEXT: "causal": true,
// JSON-NEXT: "element_type": "bf16",
// JSON-NEXT: "head_dim": 64,
// JSON-NEXT: "lse": true,
// JSON-NEXT: "seq_range": [
// JSON-NEXT: 0,
// JSON-NEXT: null

// RUN: %python -m flash_mlir.compile --out %t/shipped --arch sm_80 --ops forward > %t/compile.log
// RUN: %python -m flash_mlir.tools.check_bundles %t/shipped --expect 24 | FileCheck %s --check-prefix=SPILLS
// SPILLS-NOT: BAD
// SPILLS: 24 bundles, 0 bad
func.func @attention(%q: tensor<2x8x1000x64xbf16>, %k: tensor<2x2x1000x64xbf16>, %v: tensor<2x2x1000x64xbf16>) -> (tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>) {
  %o, %lse = flash.attention %q, %k, %v {causal}
      : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16> -> tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>
  return %o, %lse : tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>
}
