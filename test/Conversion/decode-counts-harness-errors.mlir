// RUN: not flash-opt %s --split-input-file --flash-test-decode-counts 2>&1 | FileCheck %s

// What flash-test-decode-counts (test/lib/TestDecodeCounts.cpp) refuses: a
// declaration of another type, and a module without one.

// CHECK: flash-test-decode-counts: @flash_decode_counts must have type (memref<?xi32>, memref<?xi32>, memref<?xi32>, i32, i32, i32) -> ()
module {
  func.func private @flash_decode_counts(memref<?xi32>, memref<?xi32>, i32, i32, i32)
}

// -----

// CHECK: flash-test-decode-counts: the module must declare @flash_decode_counts
module {
}
