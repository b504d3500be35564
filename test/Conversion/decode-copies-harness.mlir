// RUN: flash-opt %s --flash-test-decode-copies | FileCheck %s
// RUN: flash-opt %s --flash-test-decode-copies="paged=0 head-dim=64" | FileCheck %s --check-prefix=CONTIG
// RUN: not flash-opt %s --flash-test-decode-copies="head-dim=96" 2>&1 | FileCheck %s --check-prefix=BADDIM
// RUN: not flash-opt %s --flash-test-decode-copies="paged=0 page-size=16" 2>&1 | FileCheck %s --check-prefix=BADPAGE
// RUN: not flash-opt %s --flash-test-decode-copies="stages=1" 2>&1 | FileCheck %s --check-prefix=BADPAGE

// flash-test-decode-copies (test/lib/TestDecodeCopies.cpp) defines the
// declared @flash_decode_copies with the split kernels' K/V tile copies
// (DecodeTileCopies, SM80/DecodeCopies.h) as scalar CPU code: every thread of
// a block issuing one tile into one stage, each cp.async a copy of 8 words
// that zero-fills past its source size (python/tests/test_decode_copies.py
// checks every ring word).

// No device operation is left: the copies are loads and stores.
// CHECK-LABEL: func.func private @flash_decode_copies(
// CHECK-NOT: nvgpu.
// CHECK-NOT: gpu.
// The block's page steps, then 128 threads one after another.
// CHECK: memref.load %arg6[
// CHECK: scf.for %{{.+}} = %c0_i32{{.*}} to %c128_i32
// Paged: the rows from the table, then the two forms of the copies (plain:
// without the zero-fill operand; the other with it).
// CHECK: memref.load %arg0[
// CHECK: scf.if
// CHECK: memref.store %{{.+}}, %arg3[
// CHECK: memref.store %{{.+}}, %arg4[
// CHECK: } else {
// CHECK: arith.cmpi ult
// CHECK: memref.store %{{.+}}, %arg3[
// CHECK: return

// Contiguous: no table; the full tile's form and the clamped one.
// CONTIG-LABEL: func.func private @flash_decode_copies(
// CONTIG-NOT: %arg0[
// CONTIG: scf.for %{{.+}} = %c0_i32{{.*}} to %c128_i32
// CONTIG: scf.if
// CONTIG: memref.store %{{.+}}, %arg3[
// CONTIG: } else {
// CONTIG: arith.maxsi
// CONTIG: arith.cmpi ult
// CONTIG: return

// BADDIM: flash-test-decode-copies: head-dim must be 64, 128 or 256 (the decode kernels')
// BADPAGE: flash-test-decode-copies: page-size must be 0 or more (0 when not paged), stages 2 or more

module {
  func.func private @flash_decode_copies(memref<?xi32>, memref<?xi32>, memref<?xi32>, memref<?xi32>, memref<?xi32>, memref<?xi32>, memref<?xi32>)
}
