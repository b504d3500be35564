// RUN: flash-opt %s --flash-kernel-forms="arch=sm_90a lengths=4096,512,1024,2048" -o /dev/null | FileCheck %s
// RUN: flash-opt %s --flash-kernel-forms="arch=sm_90a lengths=512,16384 persistent=no" -o /dev/null | FileCheck %s --check-prefix=CHOICE
// RUN: flash-opt %s --flash-kernel-forms="arch=sm_100a lengths=512,16384" -o /dev/null | FileCheck %s --check-prefix=SM100
// RUN: not flash-opt %s --flash-kernel-forms="arch=sm_90a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOLENGTHS
// RUN: flash-opt %s --flash-kernel-forms="arch=sm_80 lengths=512" -o /dev/null | FileCheck %s --check-prefix=SM80

// flash-kernel-forms: the ranges of lengths over which a kernel keeps one
// schedule and form, as flash_mlir.compile asks for them (one call per
// kernel; the lengths are sorted). Causal D=64 on sm_90a: the model moves to
// 192-row tiles at 2048 and the policy groups the tiles from 16 per head
// (3072, so from 4096 among these lengths).

// CHECK: "constants": {
// CHECK: "block_kv_candidates": [
// CHECK-NEXT: 64,
// CHECK-NEXT: 80,
// CHECK-NEXT: 128
// CHECK: "lazy_rescale_log2": 8,
// CHECK: "min_grouped_q_tiles": 16,
// CHECK: "split_kv": {
// CHECK-NEXT: "blocks_per_sm": {
// CHECK-NEXT: "128": 1,
// CHECK-NEXT: "256": 1,
// CHECK-NEXT: "64": 2
// CHECK: "merge_batch": {
// CHECK-NEXT: "128": 16,
// CHECK-NEXT: "256": 8,
// CHECK-NEXT: "64": 32
// CHECK: "merge_direct": 32,
// CHECK-NEXT: "merge_group": 16,
// CHECK-NEXT: "min_tiles_per_split": 2,
// CHECK-NEXT: "separate_merge_bound": 8,
// CHECK-NEXT: "stages": {
// CHECK-NEXT: "128": 3,
// CHECK-NEXT: "256": 2,
// CHECK-NEXT: "64": 6
// CHECK: "tile_group_bytes": 16777216
// The split-KV constants (Target/SplitKV.h, the fused merge's batch of
// SM80/DecodeKernel.cpp) that python/tests/test_decode_check_cases.py uses
// to check which merge decode_check's cases reach: the decode kernels' K/V
// stages a value dimension (half an SM's shared memory) and the blocks an
// SM the split count aims at with them (one from 3 stages and 256-byte K
// rows up: sm_90a's D = 128; one where two blocks do not fit an SM: D =
// 256's 2 stages of 512-byte rows, on both). Without programmatic dependent
// launch (sm_80) there is no separate merge; its smaller SM gives D = 128
// two stages, so two blocks an SM.
// SM80: "blocks_per_sm": {
// SM80-NEXT: "128": 2,
// SM80-NEXT: "256": 1,
// SM80-NEXT: "64": 2
// SM80: "separate_merge_bound": 0,
// SM80-NEXT: "stages": {
// SM80-NEXT: "128": 2,
// SM80-NEXT: "256": 2,
// SM80-NEXT: "64": 4

// CHECK: "function": "causal64",
// CHECK: "form": "#flash.sm90_form<{{.*}}tile_order = head, tile_group_bytes = 0,
// CHECK-NEXT: "max_seq_len": 2047,
// CHECK-NEXT: "min_seq_len": 512,
// CHECK-NEXT: "schedule": "#flash.schedule<arch = \"sm_90a\", block_q = 128, block_kv = 128, stages = 2, warps = 12>"
// CHECK: "form": "#flash.sm90_form<{{.*}}tile_order = head, tile_group_bytes = 0,
// CHECK-NEXT: "max_seq_len": 4095,
// CHECK-NEXT: "min_seq_len": 2048,
// CHECK-NEXT: "schedule": "#flash.schedule<arch = \"sm_90a\", block_q = 192, block_kv = 128, stages = 2, warps = 16>"
// CHECK: "form": "#flash.sm90_form<{{.*}}tile_order = grouped, tile_group_bytes = 16777216,
// CHECK-NEXT: "max_seq_len": null,
// CHECK-NEXT: "min_seq_len": 4096,

// The form options are the same as flash-select-kernel-form's.
// CHOICE: "form": "#flash.sm90_form<persistent = false, q_buffers = 1,
// CHOICE-NOT: persistent = true

// sm_100a: no form attribute; two 128-row Q tiles per block (block_q =
// 256) in twelve warps at every length (D = 64: O and S of both tiles take
// 2·(64 + 128) = 384 of 512 tensor-memory columns).
// SM100: "block_kv_candidates": [
// SM100-NEXT: 64,
// SM100-NEXT: 128
// SM100: "arch": "sm_100a",
// SM100: "form": "",
// SM100-NEXT: "max_seq_len": null,
// SM100-NEXT: "min_seq_len": 512,
// SM100-NEXT: "schedule": "#flash.schedule<arch = \"sm_100a\", block_q = 256, block_kv = 128, stages = 3, warps = 16>"
// NOLENGTHS: error: flash-kernel-forms: lengths must be positive, e.g. lengths=512,1024

func.func @causal64(%q: tensor<1x1x1024x64xbf16>, %k: tensor<1x1x1024x64xbf16>, %v: tensor<1x1x1024x64xbf16>) -> tensor<1x1x1024x64xbf16> {
  %o = flash.attention %q, %k, %v {causal} : tensor<1x1x1024x64xbf16>, tensor<1x1x1024x64xbf16>, tensor<1x1x1024x64xbf16> -> tensor<1x1x1024x64xbf16>
  return %o : tensor<1x1x1024x64xbf16>
}
