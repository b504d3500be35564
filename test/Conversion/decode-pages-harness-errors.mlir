// RUN: not flash-opt %s --split-input-file --flash-test-decode-pages 2>&1 | FileCheck %s

// What flash-test-decode-pages (test/lib/TestDecodePages.cpp) refuses: a
// declaration of another type, and a module without one.

// CHECK: flash-test-decode-pages: @flash_decode_pages must have type (memref<?xi32>, memref<?xi32>, memref<?xi32>, i32, i32, i32, i32, i32, i32, i32) -> ()
module {
  func.func private @flash_decode_pages(memref<?xi32>, memref<?xi32>, memref<?xi32>, i32, i32, i32, i32, i32, i32)
}

// -----

// CHECK: flash-test-decode-pages: the module must declare @flash_decode_pages
module {
}
