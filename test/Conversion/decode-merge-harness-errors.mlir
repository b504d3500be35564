// RUN: not flash-opt %s --split-input-file --flash-test-decode-merge 2>&1 | FileCheck %s

// What flash-test-decode-merge (test/lib/TestDecodeMerge.cpp) refuses: a
// declaration of another type, and a module without one.

// CHECK: flash-test-decode-merge: @flash_decode_merge must have type (memref<?xf32>, memref<?xf32>, memref<?xi32>, memref<?xf32>, i32, i32) -> ()
module {
  func.func private @flash_decode_merge(memref<?xf32>, memref<?xf32>, memref<?xi32>, memref<?xf32>, i32)
}

// -----

// CHECK: flash-test-decode-merge: the module must declare @flash_decode_merge
module {
}
