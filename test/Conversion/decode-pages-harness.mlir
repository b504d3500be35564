// RUN: flash-opt %s --flash-test-decode-pages="page-size=64" | FileCheck %s
// RUN: flash-opt %s --flash-test-decode-pages="grouped=1 head-dim=64" | FileCheck %s --check-prefix=GROUPED
// RUN: not flash-opt %s --flash-test-decode-pages="head-dim=96" 2>&1 | FileCheck %s --check-prefix=BADDIM
// RUN: not flash-opt %s --flash-test-decode-pages="grouped=1 page-size=16" 2>&1 | FileCheck %s --check-prefix=BADGROUPED
// RUN: flash-opt %s --flash-test-decode-pages="window=1024" | FileCheck %s --check-prefix=WIDE
// RUN: not flash-opt %s --flash-test-decode-pages="window=100" 2>&1 | FileCheck %s --check-prefix=BADWINDOW

// flash-test-decode-pages (test/lib/TestDecodePages.cpp) defines the declared
// @flash_decode_pages with the paged split kernels' page arithmetic
// (DecodePageRows, SM80/DecodePages.h) as scalar CPU code: the window the
// block's threads fill and the cache row of every key of its tiles
// (python/tests/test_decode_pages.py runs it against the definition).

// CHECK-LABEL: func.func private @flash_decode_pages(
// CHECK-NOT: gpu.
// CHECK-NOT: nvvm.
// The header: windowed, the first page, the part's last key, its pages.
// CHECK-COUNT-4: memref.store %{{.+}}, %arg2[%{{.+}}] : memref<?xi32>
// The window: each of 128 threads loads its entries from the table (when
// the part fits) and stores them in the window.
// CHECK: scf.for %{{.+}} = %{{.+}} to %c128
// CHECK: scf.if
// CHECK: memref.load %arg0[
// CHECK: memref.store %{{.+}}, %arg1[
// A kernel for 64 slots: one table entry a tile, the slot as key & 63.
// CHECK: arith.constant 63 : i32
// CHECK: return

// The separate merge's grouped form: fastPages and prologueFast in the
// header, the window's entries loaded whether or not the part fits.
// GROUPED-LABEL: func.func private @flash_decode_pages(
// GROUPED-COUNT-6: memref.store %{{.+}}, %arg2[%{{.+}}] : memref<?xi32>
// GROUPED: scf.for %{{.+}} = %{{.+}} to %c128
// GROUPED-NOT: scf.if
// GROUPED: memref.load %arg0[

// A window of 1024 (the kernels that aim at one block an SM): the entries
// past the first 512 only where the part has more pages than 512.
// WIDE-LABEL: func.func private @flash_decode_pages(
// WIDE: arith.cmpi sle, %{{.+}}, %c1024_i32 : i32
// WIDE: arith.cmpi sgt, %{{.+}}, %c512_i32 : i32
// WIDE: scf.for %{{.+}} = %{{.+}} to %c128

// BADDIM: flash-test-decode-pages: head-dim must be a multiple of 8 that the block's copies divide (64, 128 or 256)
// BADGROUPED: flash-test-decode-pages: page-size must be 0 or more (0 with grouped), stages 2 or more
// BADWINDOW: flash-test-decode-pages: window must be a positive multiple of the block's 128 threads

module {
  func.func private @flash_decode_pages(memref<?xi32>, memref<?xi32>, memref<?xi32>, i32, i32, i32, i32, i32, i32, i32)
}

