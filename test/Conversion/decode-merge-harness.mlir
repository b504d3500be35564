// RUN: flash-opt %s --flash-test-decode-merge | FileCheck %s
// RUN: flash-opt %s --flash-test-decode-merge="lse=0 head-dim=64 element-type=f16" | FileCheck %s --check-prefix=NOLSE
// RUN: flash-opt %s --flash-test-decode-merge="form=kernel" | FileCheck %s --check-prefix=KERNEL
// RUN: not flash-opt %s --flash-test-decode-merge="form=warp" 2>&1 | FileCheck %s --check-prefix=BADFORM
// RUN: not flash-opt %s --flash-test-decode-merge="head-dim=96" 2>&1 | FileCheck %s --check-prefix=BADDIM
// RUN: not flash-opt %s --flash-test-decode-merge="element-type=f32" 2>&1 | FileCheck %s --check-prefix=BADTYPE

// flash-test-decode-merge (test/lib/TestDecodeMerge.cpp) defines the declared
// @flash_decode_merge with the decode kernels' merge of parts (buildMergeRow,
// SM80/DecodeMerge.h) in the kernels' scalar form, its two NVVM operations
// replaced by the host's (python/tests/test_decode_merge.py runs it).

// CHECK-LABEL: func.func private @flash_decode_merge(
// CHECK-NOT: nvvm.
// CHECK-NOT: llvm.call_intrinsic
// The partials as the kernels read them: volatile loads of global pointers.
// CHECK: llvm.inttoptr %{{.+}} : i64 to !llvm.ptr<1>
// CHECK: scf.if
// The first level's loads, weights (exp2 on the host) and the group's slot.
// CHECK: llvm.load volatile %{{.+}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: llvm.load volatile %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.intr.exp2(%{{.+}}) : (f32) -> f32
// CHECK: llvm.intr.log2(%{{.+}}) : (f32) -> f32
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// The output row: O as 16-bit pairs in 32-bit words, the LSE.
// CHECK: arith.truncf %{{.+}} : vector<2xf32> to vector<2xbf16>
// CHECK: memref.store %{{.+}}, %arg2[%{{.+}}] : memref<?xi32>
// CHECK: memref.store %{{.+}}, %arg3[%{{.+}}] : memref<?xf32>
// CHECK-NOT: nvvm.
// CHECK: return

// Without the LSE nothing is stored into %arg3; D = 64: two columns a lane.
// NOLSE-LABEL: func.func private @flash_decode_merge(
// NOLSE-NOT: %arg3[
// NOLSE: llvm.load volatile %{{.+}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// NOLSE-NOT: %arg3[
// NOLSE: arith.truncf %{{.+}} : vector<2xf32> to vector<2xf16>
// NOLSE-NOT: %arg3[
// NOLSE: return

// form=kernel: sm_90a's separate merge kernel. The block's exchange (128
// threads × 6 words) is a buffer; for each row of at least two parts and
// each slice of 32 columns (4 at D = 128), the 128 threads' sums (a loop
// from the thread's group to the part count, 16 groups × 8 parts a pass:
// step 128) stored into it, then the first group's combine.
// KERNEL-LABEL: func.func private @flash_decode_merge(
// KERNEL-NOT: nvvm.
// KERNEL: memref.alloca() : memref<768xf32>
// KERNEL: scf.for %[[ROW:.+]] = %{{.+}} to %arg5
// KERNEL: arith.cmpi sge, %arg4, %c2_i32
// KERNEL: scf.for %{{.+}} = %{{.+}} to %c4_i32
// KERNEL: scf.for %{{.+}} = %{{.+}} to %c128_i32
// KERNEL: scf.for %{{.+}} = %{{.+}} to %arg4 step %c128_i32
// KERNEL: llvm.load volatile %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// KERNEL: llvm.intr.exp2(%{{.+}}) : (f32) -> f32
// KERNEL-COUNT-6: memref.store %{{.+}}, %alloca[%{{.+}}] : memref<768xf32>
// KERNEL: scf.for %{{.+}} = %{{.+}} to %c128_i32
// KERNEL: arith.cmpi eq
// KERNEL: scf.if
// KERNEL: memref.load %alloca[%{{.+}}] : memref<768xf32>
// KERNEL: memref.store %{{.+}}, %arg2[%{{.+}}] : memref<?xi32>
// KERNEL: llvm.intr.log2(%{{.+}}) : (f32) -> f32
// The LSE from the thread with slice + quad = 0.
// KERNEL: %[[SQ:.+]] = arith.addi %[[SLICE:arg[0-9]+]], %{{.+}} : i32
// KERNEL-NEXT: %[[FIRST:.+]] = arith.cmpi eq, %[[SQ]], %c0_i32{{.*}} : i32
// KERNEL-NEXT: scf.if %[[FIRST]] {
// KERNEL-NEXT: memref.store %{{.+}}, %arg3[%{{.+}}] : memref<?xf32>
// KERNEL-NOT: nvvm.
// KERNEL: return

// BADFORM: flash-test-decode-merge: form must be fused or kernel
// BADDIM: flash-test-decode-merge: head-dim must be 64, 128 or 256 (the decode kernels')
// BADTYPE: flash-test-decode-merge: element-type must be f16 or bf16

module {
  func.func private @flash_decode_merge(memref<?xf32>, memref<?xf32>, memref<?xi32>, memref<?xf32>, i32, i32)
}
