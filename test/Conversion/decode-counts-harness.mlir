// RUN: flash-opt %s --flash-test-decode-counts | FileCheck %s

// flash-test-decode-counts (test/lib/TestDecodeCounts.cpp) defines the
// declared @flash_decode_counts with the split kernels' fused-merge counts
// (buildFusedMergeCounts, SM80/DecodeMerge.h): a loop over the finishing
// blocks, each counting on its counter (a load, an add, a store here; the
// atomic on the GPU), the last merging (a log record) and resetting
// (python/tests/test_decode_counts.py runs it).

// CHECK-LABEL: func.func private @flash_decode_counts(
// CHECK-SAME: %[[ORDER:[^:]+]]: memref<?xi32>, %[[CNT:[^:]+]]: memref<?xi32>, %[[LOG:[^:]+]]: memref<?xi32>, %[[BLOCKS:[^:]+]]: i32, %[[N:[^:]+]]: i32, %[[GRID:[^:]+]]: i32)
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %[[BLOCKS]]
// CHECK: %[[UNIT:.+]] = memref.load %[[ORDER]]
// CHECK: %[[PART:.+]] = memref.load %[[ORDER]]
// Two levels beyond 32 parts.
// CHECK: %[[TWO:.+]] = arith.cmpi sgt, %[[N]], %c32_i32
// The unit's counters: 2·⌈grid / 16⌉ words from unit·stride; the group's
// counter 1 + group after the unit's.
// CHECK: %[[G15:.+]] = arith.addi %[[GRID]], %c15_i32{{.*}} : i32
// CHECK-NEXT: %[[GQ:.+]] = arith.divui %[[G15]], %c16_i32{{.*}} : i32
// CHECK: %[[STRIDE:.+]] = arith.muli %c2_i32{{.*}}, %[[GQ]] : i32
// CHECK-NEXT: %[[UC:.+]] = arith.muli %[[UNIT]], %[[STRIDE]] : i32
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-NEXT: %[[G1:.+]] = arith.addi %{{.+}}, %[[ONE]] : i32
// CHECK-NEXT: %[[GC:.+]] = arith.addi %[[UC]], %[[G1]] : i32
// CHECK-NEXT: %[[FIRST:.+]] = arith.select %[[TWO]], %[[GC]], %[[UC]] : i32
// CHECK-NEXT: %[[FI:.+]] = arith.index_castui %[[FIRST]]
// CHECK-NEXT: memref.load %[[CNT]][%[[FI]]]
// The count on the first counter, then the last block's merges.
// CHECK: memref.store %{{.+}}, %[[CNT]]
// CHECK: scf.if
// CHECK-NEXT: scf.if %[[TWO]] {
// A group into its first part's slot (kind 2), its counter reset, the
// group counted on the unit's counter; its last block merges the groups
// (kind 3) and resets the unit's counter.
// CHECK: memref.store %c2_i32{{.*}}, %[[LOG]]
// CHECK: memref.store %c0_i32{{.*}}, %[[CNT]]
// CHECK: memref.load %[[CNT]]
// CHECK: scf.if
// CHECK: memref.store %c3_i32{{.*}}, %[[LOG]]
// CHECK: memref.store %c0_i32{{.*}}, %[[CNT]]
// CHECK: } else {
// One level: every part (kind 1), the unit's counter reset.
// CHECK: memref.store %c1_i32{{.*}}, %[[LOG]]
// CHECK: memref.store %c0_i32{{.*}}, %[[CNT]]
// CHECK: return

module {
  func.func private @flash_decode_counts(memref<?xi32>, memref<?xi32>, memref<?xi32>, i32, i32, i32)
}

