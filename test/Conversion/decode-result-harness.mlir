// RUN: flash-opt %s --flash-test-decode-result | FileCheck %s
// RUN: flash-opt %s --flash-test-decode-result="combine=first-warp m-tiles=2" | FileCheck %s --check-prefix=FIRST
// RUN: flash-opt %s --flash-test-decode-result="lse=false element-type=f16 head-dim=64" | FileCheck %s --check-prefix=NOLSE
// RUN: flash-opt %s --flash-test-decode-result="shared=true" | FileCheck %s --check-prefix=SHARED
// RUN: not flash-opt %s --flash-test-decode-result="combine=warp0" 2>&1 | FileCheck %s --check-prefix=BADCOMBINE
// RUN: not flash-opt %s --flash-test-decode-result="head-dim=128 m-tiles=3" 2>&1 | FileCheck %s --check-prefix=BADM
// RUN: not flash-opt %s --flash-test-decode-result="element-type=f32" 2>&1 | FileCheck %s --check-prefix=BADTYPE

// flash-test-decode-result (test/lib/TestDecodeResult.cpp) defines the
// declared @flash_decode_result with what a split kernel's block writes from
// its combined state (writeSplitResult; SM80/DecodeMerge.h), in host-lanes
// mode: a warp's lanes are vector<32 x T>, the quads' row sums lane shuffles,
// the stores scatters masked to the lanes that make them
// (python/tests/test_decode_result.py runs it).

// Slices (D = 128, one 16-row tile, bf16, LSE): each of the 4 warps loads its
// 20 words a lane (2 maxima, 2 sums, 16 registers: a quarter of the columns),
// the LSE only by warp 0 (WRITER, its lanes' quad lane 0), branches on one part (%sizes[0] == 1): O as 8 word scatters (2 rows × 4
// pairs) after the quad sums (lanes xor 1, then xor 2) and, LSE by log2,
// 2 scatters; else per row 8 scatters of the f32 partial O (the thread's
// columns 0, 1, 8, 9, ... 25 past its first), then (quad lane 0: t == 0) one
// of the partial LSE.
// CHECK-LABEL: func.func private @flash_decode_result(
// CHECK-NOT: nvvm.
// CHECK: %[[PARTS:.+]] = memref.load %arg5[%c0] : memref<?xi32>
// CHECK-COUNT-20: vector.load %arg0[%{{.+}}] : memref<?xf32>, vector<32xf32>
// CHECK: %[[WRITER:.+]] = arith.cmpi eq, %{{.+}}, %{{.+}} : vector<32xi32>
// CHECK: %[[ONE:.+]] = arith.cmpi eq, %[[PARTS]], %c1_i32{{.*}} : i32
// CHECK-NEXT: scf.if %[[ONE]] {
// CHECK: vector.shuffle %{{.+}}, %{{.+}} [1, 0, 3, 2,
// CHECK-NEXT: arith.addf
// CHECK-NEXT: vector.shuffle %{{.+}}, %{{.+}} [2, 3, 0, 1,
// CHECK: arith.truncf %{{.+}} : vector<64xf32> to vector<64xbf16>
// CHECK-COUNT-8: vector.scatter %arg1[%{{.+}}] [%{{.+}}], %{{.+}}, %{{.+}} : memref<?xi32>, vector<32xindex>, vector<32xi1>, vector<32xi32>
// CHECK: arith.andi %[[WRITER]], %{{.+}} : vector<32xi1>
// CHECK: llvm.intr.log2
// CHECK: vector.scatter %arg2[
// CHECK: arith.andi %[[WRITER]], %{{.+}} : vector<32xi1>
// CHECK: llvm.intr.log2
// CHECK: vector.scatter %arg2[
// CHECK: } else {
// CHECK: arith.constant dense<0> : vector<32xindex>
// CHECK: vector.scatter %arg3[
// CHECK: arith.constant dense<1> : vector<32xindex>
// CHECK: vector.scatter %arg3[
// CHECK: arith.constant dense<8> : vector<32xindex>
// CHECK: vector.scatter %arg3[
// CHECK: arith.constant dense<9> : vector<32xindex>
// CHECK: vector.scatter %arg3[
// CHECK: arith.constant dense<16> : vector<32xindex>
// CHECK: vector.scatter %arg3[
// CHECK: arith.constant dense<17> : vector<32xindex>
// CHECK: vector.scatter %arg3[
// CHECK: arith.constant dense<24> : vector<32xindex>
// CHECK: vector.scatter %arg3[
// CHECK: arith.constant dense<25> : vector<32xindex>
// CHECK: vector.scatter %arg3[
// CHECK-NEXT: arith.constant dense<0> : vector<32xi32>
// CHECK-NEXT: %[[LANE0:.+]] = arith.cmpi eq, %{{.+}}, %{{.+}} : vector<32xi32>
// CHECK-NEXT: arith.andi %[[LANE0]], %[[WRITER]] : vector<32xi1>
// CHECK: vector.scatter %arg4[
// CHECK-COUNT-8: vector.scatter %arg3[
// CHECK: vector.scatter %arg4[
// CHECK-NOT: vector.scatter %arg
// CHECK: }
// CHECK-COUNT-20: vector.load %arg0[
// CHECK: scf.if
// CHECK-COUNT-20: vector.load %arg0[
// CHECK: scf.if
// CHECK-COUNT-20: vector.load %arg0[
// CHECK: scf.if
// CHECK-NOT: scf.if
// CHECK: return

// First warp (D = 128, two 16-row tiles): warp 0 alone, 136 words a lane,
// all 16 column tiles: 4 rows × 16 pairs of O (the epilogue writes the LSE,
// 4 rows), or 4 × 32 partial columns and 4 partial LSEs.
// FIRST-LABEL: func.func private @flash_decode_result(
// FIRST-COUNT-136: vector.load %arg0[
// FIRST-NOT: vector.load
// FIRST: scf.if
// FIRST-COUNT-64: vector.scatter %arg1[
// FIRST: } else {
// FIRST-COUNT-128: vector.scatter %arg3[
// FIRST-NOT: scf.if
// FIRST: return

// Without the LSE (f16, D = 64): O's words (2 rows × 2 pairs a warp) and no
// store to %lse; the partial LSE is still written (the merge needs it).
// NOLSE-LABEL: func.func private @flash_decode_result(
// NOLSE-NOT: vector.scatter %arg2
// NOLSE: arith.truncf %{{.+}} : vector<64xf32> to vector<64xf16>
// NOLSE-COUNT-4: vector.scatter %arg1[
// NOLSE-NOT: vector.scatter %arg2
// NOLSE: vector.scatter %arg4[
// NOLSE-NOT: vector.scatter %arg2
// NOLSE: return

// shared=true (sm_90a's pair merge): several parts branch once more on
// place.inShared (here true), and the partials' rows there start at the row
// tile's first row: row − tileRow0, a signed index (rows of the tile below
// their group's base), scattered to the same buffers.
// SHARED-LABEL: func.func private @flash_decode_result(
// SHARED-NOT: nvvm.
// SHARED: } else {
// SHARED-NEXT: %[[IN:.+]] = arith.constant true
// SHARED-NEXT: scf.if %[[IN]] {
// SHARED: %[[NEG:.+]] = arith.subi %{{.+}}, %{{.+}} : vector<32xi32>
// SHARED-NEXT: arith.index_cast %[[NEG]] : vector<32xi32> to vector<32xindex>
// SHARED: vector.scatter %arg3[
// SHARED: vector.scatter %arg4[
// SHARED: } else {
// SHARED: vector.scatter %arg3[
// SHARED: return

// BADCOMBINE: flash-test-decode-result: combine must be slices or first-warp
// BADM: flash-test-decode-result: m-tiles must be 1 to 2 at head-dim 128
// BADTYPE: flash-test-decode-result: element-type must be f16 or bf16

module {
  func.func private @flash_decode_result(memref<?xf32>, memref<?xi32>, memref<?xf32>, memref<?xf32>, memref<?xf32>, memref<?xi32>, f32)
}
