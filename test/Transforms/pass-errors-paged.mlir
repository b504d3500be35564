// flash.paged_attention and the split-KV form: every pass rejects what it
// cannot do with a located diagnostic and a non-zero exit, never a crash.
// RUN: not flash-opt %s --split-input-file --flash-tile 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not flash-opt %s --split-input-file --flash-io-report 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not flash-opt %s --split-input-file --flash-decompose 2>&1 | FileCheck %s --check-prefix=UNTILED
// RUN: not flash-opt %s --split-input-file --flash-select-schedule=arch=sm_80 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not flash-opt %s --split-input-file --flash-select-schedule=max-splits=-2 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not flash-opt %s --split-input-file --flash-lower-to-reference 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not flash-opt %s --split-input-file --flash-cpu-pipeline 2>&1 | FileCheck %s --check-prefix=DYNAMIC

// NEGATIVE: error: flash-select-schedule: max-splits must be non-negative, got -2
func.func @plain(%q: tensor<1x4x1x16xf16>, %kc: tensor<8x4x2x16xf16>, %vc: tensor<8x4x2x16xf16>, %bt: tensor<1x4xi32>, %sl: tensor<1xi32>) -> tensor<1x4x1x16xf16> {
  // TILE: pass-errors-paged.mlir:[[@LINE+3]]:8: error: 'flash.paged_attention' op has no #flash.schedule; run flash-select-schedule first
  // REPORT: pass-errors-paged.mlir:[[@LINE+2]]:8: error: 'flash.paged_attention' op has no #flash.schedule; run flash-select-schedule before flash-io-report
  // UNTILED: pass-errors-paged.mlir:[[@LINE+1]]:8: error: 'flash.paged_attention' op must be tiled (flash-tile) before flash-decompose
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<1x4x1x16xf16>, tensor<8x4x2x16xf16>, tensor<8x4x2x16xf16>, tensor<1x4xi32>, tensor<1xi32> -> tensor<1x4x1x16xf16>
  return %o : tensor<1x4x1x16xf16>
}

// -----

// A head dimension whose accumulator fits no sm_80 tile.
// SCHEDULE: pass-errors-paged.mlir:[[@LINE+2]]:8: error: 'flash.paged_attention' op not supported yet: no split-KV schedule for sm_80 fits D=1024, Dv=1024 in shared memory and registers
func.func @too_wide(%q: tensor<1x4x1x1024xf16>, %kc: tensor<8x4x2x1024xf16>, %vc: tensor<8x4x2x1024xf16>, %bt: tensor<1x4xi32>, %sl: tensor<1xi32>) -> tensor<1x4x1x1024xf16> {
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<1x4x1x1024xf16>, tensor<8x4x2x1024xf16>, tensor<8x4x2x1024xf16>, tensor<1x4xi32>, tensor<1xi32> -> tensor<1x4x1x1024xf16>
  return %o : tensor<1x4x1x1024xf16>
}

// -----

// DYNAMIC: pass-errors-paged.mlir:[[@LINE+3]]:8: error: 'flash.paged_attention' op not supported yet: dynamic dimensions (block_table is 'tensor<1x?xi32>')
// SCHEDULE: pass-errors-paged.mlir:[[@LINE+2]]:8: error: 'flash.paged_attention' op not supported yet: dynamic dimensions (block_table is 'tensor<1x?xi32>')
func.func @dynamic(%q: tensor<1x4x1x16xf32>, %kc: tensor<8x4x2x16xf32>, %vc: tensor<8x4x2x16xf32>, %bt: tensor<1x?xi32>, %sl: tensor<1xi32>) -> tensor<1x4x1x16xf32> {
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<1x4x1x16xf32>, tensor<8x4x2x16xf32>, tensor<8x4x2x16xf32>, tensor<1x?xi32>, tensor<1xi32> -> tensor<1x4x1x16xf32>
  return %o : tensor<1x4x1x16xf32>
}

// -----

// An empty query (Nq = 0) has nothing to split.
// TILE: pass-errors-paged.mlir:[[@LINE+2]]:8: error: 'flash.paged_attention' op not supported yet: split-KV of an empty batch or query (B = 1, Nq = 0)
func.func @no_queries(%q: tensor<1x4x0x16xf32>, %kc: tensor<8x4x2x16xf32>, %vc: tensor<8x4x2x16xf32>, %bt: tensor<1x4xi32>, %sl: tensor<1xi32>) -> tensor<1x4x0x16xf32> {
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl {schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4, max_splits = 108>} : tensor<1x4x0x16xf32>, tensor<8x4x2x16xf32>, tensor<8x4x2x16xf32>, tensor<1x4xi32>, tensor<1xi32> -> tensor<1x4x0x16xf32>
  return %o : tensor<1x4x0x16xf32>
}

// -----

// A split-KV schedule on a flash.attention without queries.
// TILE: pass-errors-paged.mlir:[[@LINE+2]]:8: error: 'flash.attention' op not supported yet: split-KV of an empty batch or query (B = 0, Nq = 1)
func.func @no_batch(%q: tensor<0x4x1x16xf32>, %k: tensor<0x2x9x16xf32>, %v: tensor<0x2x9x16xf32>) -> tensor<0x4x1x16xf32> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4, max_splits = 108>} : tensor<0x4x1x16xf32>, tensor<0x2x9x16xf32>, tensor<0x2x9x16xf32> -> tensor<0x4x1x16xf32>
  return %o : tensor<0x4x1x16xf32>
}
