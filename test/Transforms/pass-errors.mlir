// Every pass rejects what it cannot do with a located diagnostic and a
// non-zero exit, never a crash.
// RUN: not flash-opt %s --flash-tile 2>&1 | FileCheck %s --check-prefix=NOSCHED
// RUN: not flash-opt %s --flash-io-report 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not flash-opt %s --flash-decompose 2>&1 | FileCheck %s --check-prefix=UNTILED
// RUN: not flash-opt %s --flash-select-schedule=arch=sm_75 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: not flash-opt %s --flash-select-schedule=block-q=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not flash-opt %s --split-input-file --flash-select-schedule=arch=sm_80 2>&1 | FileCheck %s --check-prefix=NOFIT
// RUN: not flash-opt %s --split-input-file --flash-lower-to-reference 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not flash-opt %s --split-input-file --flash-cpu-pipeline 2>&1 | FileCheck %s --check-prefix=DYNAMIC

// ARCH: error: flash-select-schedule: unknown arch 'sm_75'; expected one of sm_80, sm_90a, sm_100a
// NEGATIVE: error: flash-select-schedule: block-q must be non-negative, got -1
func.func @plain(%q: tensor<1x1x10x16xf16>, %k: tensor<1x1x10x16xf16>, %v: tensor<1x1x10x16xf16>) -> tensor<1x1x10x16xf16> {
  // NOSCHED: pass-errors.mlir:[[@LINE+3]]:8: error: 'flash.attention' op has no #flash.schedule; run flash-select-schedule first
  // REPORT: pass-errors.mlir:[[@LINE+2]]:8: error: 'flash.attention' op has no #flash.schedule; run flash-select-schedule before flash-io-report
  // UNTILED: pass-errors.mlir:[[@LINE+1]]:8: error: 'flash.attention' op must be tiled (flash-tile) before flash-decompose
  %o = flash.attention %q, %k, %v : tensor<1x1x10x16xf16>, tensor<1x1x10x16xf16>, tensor<1x1x10x16xf16> -> tensor<1x1x10x16xf16>
  return %o : tensor<1x1x10x16xf16>
}

// -----

// A head dimension whose accumulator cannot fit the registers of any sm_80 tile.
// NOFIT: pass-errors.mlir:[[@LINE+2]]:8: error: 'flash.attention' op not supported yet: no schedule for sm_80 fits D=1024, Dv=1024 in shared memory and registers
func.func @too_wide(%q: tensor<1x1x10x1024xf16>, %k: tensor<1x1x10x1024xf16>, %v: tensor<1x1x10x1024xf16>) -> tensor<1x1x10x1024xf16> {
  %o = flash.attention %q, %k, %v : tensor<1x1x10x1024xf16>, tensor<1x1x10x1024xf16>, tensor<1x1x10x1024xf16> -> tensor<1x1x10x1024xf16>
  return %o : tensor<1x1x10x1024xf16>
}

// -----

// DYNAMIC: pass-errors.mlir:[[@LINE+2]]:8: error: 'flash.attention' op not supported yet: dynamic dimensions (query is 'tensor<?x1x10x16xf32>')
func.func @dynamic(%q: tensor<?x1x10x16xf32>, %k: tensor<?x1x10x16xf32>, %v: tensor<?x1x10x16xf32>) -> tensor<?x1x10x16xf32> {
  %o = flash.attention %q, %k, %v : tensor<?x1x10x16xf32>, tensor<?x1x10x16xf32>, tensor<?x1x10x16xf32> -> tensor<?x1x10x16xf32>
  return %o : tensor<?x1x10x16xf32>
}

// -----

// DYNAMIC: pass-errors.mlir:[[@LINE+2]]:8: error: 'flash.attention' op not supported yet: dynamic dimensions (output is 'tensor<1x1x?x16xf32>')
func.func @dynamic_result(%q: tensor<1x1x10x16xf32>, %k: tensor<1x1x10x16xf32>, %v: tensor<1x1x10x16xf32>) -> tensor<1x1x?x16xf32> {
  %o = flash.attention %q, %k, %v : tensor<1x1x10x16xf32>, tensor<1x1x10x16xf32>, tensor<1x1x10x16xf32> -> tensor<1x1x?x16xf32>
  return %o : tensor<1x1x?x16xf32>
}

// -----

// DYNAMIC: pass-errors.mlir:[[@LINE+2]]:8: error: 'flash.attention' op not supported yet: a dimension above 2^31 - 1 (query is 'tensor<1x1x4294967296x64xbf16>')
func.func @huge(%q: tensor<1x1x4294967296x64xbf16>, %k: tensor<1x1x16x64xbf16>, %v: tensor<1x1x16x64xbf16>) -> tensor<1x1x4294967296x64xbf16> {
  %o = flash.attention %q, %k, %v : tensor<1x1x4294967296x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16> -> tensor<1x1x4294967296x64xbf16>
  return %o : tensor<1x1x4294967296x64xbf16>
}
