// RUN: flash-opt %s --flash-test-decode-combine | FileCheck %s
// RUN: flash-opt %s --flash-test-decode-combine="combine=first-warp m-tiles=2" | FileCheck %s --check-prefix=FIRST
// RUN: not flash-opt %s --flash-test-decode-combine="combine=warp0" 2>&1 | FileCheck %s --check-prefix=BADCOMBINE
// RUN: not flash-opt %s --flash-test-decode-combine="head-dim=256 m-tiles=2" 2>&1 | FileCheck %s --check-prefix=BADM
// RUN: not flash-opt %s --flash-test-decode-combine="head-dim=96" 2>&1 | FileCheck %s --check-prefix=BADDIM

// flash-test-decode-combine (test/lib/TestDecodeCombine.cpp) defines the
// declared @flash_decode_combine with the split-KV kernels' combine of their
// four warps' softmax states (storeWarpCombineWords, combineWarpSlices,
// combineIntoFirstWarp; SM80/DecodeMerge.h) in the kernels' scalar form, its
// ex2.approx replaced by the host's exp2 (python/tests/test_decode_combine.py
// runs it).

// Slices (D = 128, one 16-row tile): a lane leaves 68 words (2 maxima, 2
// sums, 64 accumulator registers) for each of the 4 warps (8704 f32). Every
// warp's lanes store, then every warp's lanes combine: the common maxima
// over the 4 warps (3 maxnumf a row), the factors (fma, exp2), and write 2 +
// 2 + 16 words (their quarter of the 16 column tiles).
// CHECK-LABEL: func.func private @flash_decode_combine(
// CHECK-NOT: nvvm.
// CHECK: %[[C:.+]] = arith.mulf %arg2, %cst{{.*}} : f32
// CHECK: memref.alloca() : memref<8704xf32>
// CHECK: scf.for %[[W:.+]] = %{{.+}} to %c4_i32
// CHECK: scf.for %{{.+}} = %{{.+}} to %c32_i32
// CHECK-COUNT-68: memref.store %{{.+}}, %alloca[%{{.+}}] : memref<8704xf32>
// CHECK: scf.for %{{.+}} = %{{.+}} to %c4_i32
// CHECK: scf.for %{{.+}} = %{{.+}} to %c32_i32
// CHECK-COUNT-6: arith.maxnumf
// CHECK: llvm.intr.fma(%{{.+}}, %[[C]], %{{.+}}) : (f32, f32, f32) -> f32
// CHECK-NEXT: llvm.intr.exp2(%{{.+}}) : (f32) -> f32
// CHECK-COUNT-20: memref.store %{{.+}}, %arg1[%{{.+}}] : memref<?xf32>
// CHECK-NOT: memref.store
// CHECK: return

// First warp (D = 128, two 16-row tiles): warps 1-3 store (warp 0 keeps its
// state; 136 words a lane, 3 places: 13056 f32), then warp 0's 32 lanes
// combine and write all 136 words.
// FIRST-LABEL: func.func private @flash_decode_combine(
// FIRST-NOT: nvvm.
// FIRST: memref.alloca() : memref<13056xf32>
// FIRST: scf.for %[[W:.+]] = %{{.+}} to %c4_i32
// FIRST: arith.cmpi ne, %[[W]], %c0_i32{{.*}} : i32
// FIRST-NEXT: scf.if
// FIRST-COUNT-136: memref.store %{{.+}}, %alloca[%{{.+}}] : memref<13056xf32>
// FIRST: scf.for %{{.+}} = %{{.+}} to %c32_i32
// FIRST-NOT: scf.for
// FIRST: llvm.intr.exp2
// FIRST-COUNT-136: memref.store %{{.+}}, %arg1[%{{.+}}] : memref<?xf32>
// FIRST: return

// BADCOMBINE: flash-test-decode-combine: combine must be slices or first-warp
// BADM: flash-test-decode-combine: m-tiles must be 1 to 1 at head-dim 256
// BADDIM: flash-test-decode-combine: head-dim must be 64, 128 or 256 (the decode kernels')

module {
  func.func private @flash_decode_combine(memref<?xf32>, memref<?xf32>, f32)
}
