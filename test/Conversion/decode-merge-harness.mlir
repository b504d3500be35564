// RUN: flash-opt %s --flash-test-decode-merge | FileCheck %s
// RUN: flash-opt %s --flash-test-decode-merge="lse=0 head-dim=64 element-type=f16" | FileCheck %s --check-prefix=NOLSE
// RUN: flash-opt %s --flash-test-decode-merge="form=kernel" | FileCheck %s --check-prefix=KERNEL
// RUN: flash-opt %s --flash-test-decode-merge="form=pair" | FileCheck %s --check-prefix=PAIR
// RUN: not flash-opt %s --flash-test-decode-merge="form=warp" 2>&1 | FileCheck %s --check-prefix=BADFORM
// RUN: not flash-opt %s --flash-test-decode-merge="head-dim=96" 2>&1 | FileCheck %s --check-prefix=BADDIM
// RUN: not flash-opt %s --flash-test-decode-merge="element-type=f32" 2>&1 | FileCheck %s --check-prefix=BADTYPE

// flash-test-decode-merge (test/lib/TestDecodeMerge.cpp) defines the declared
// @flash_decode_merge with the decode kernels' merge of parts (buildMergeRow,
// SM80/DecodeMerge.h; form=kernel and form=pair below) in the kernels'
// scalar form, its two NVVM operations replaced by the host's
// (python/tests/test_decode_merge.py runs it).

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

// form=pair: sm_90a's pair merge (buildPairMergeRows), for two parts only.
// Both ranks' four warps, lane 31 first, each taking rows 2·warp + rank,
// + 8, ... of the tile; per row part 0's 4 words and LSE, then part 1's
// (plain loads of the buffers, where the kernel reads the cluster's shared
// memory), the two weights, O = (w0·O0 + w1·O1) / (w0 + w1) as 16-bit
// pairs and, from lane 0, the LSE.
// PAIR-LABEL: func.func private @flash_decode_merge(
// PAIR-NOT: nvvm.
// PAIR: arith.cmpi eq, %arg4, %c2_i32
// PAIR: scf.for %[[RANK:.+]] = %{{.+}} to %c2_i32{{.*}} step
// PAIR: scf.for %[[WARP:.+]] = %{{.+}} to %c4_i32{{.*}} step
// PAIR: scf.for %{{.+}} = %{{.+}} to %c32_i32{{.*}} step
// PAIR: %[[W2:.+]] = arith.muli %[[WARP]], %c2_i32{{.*}} : i32
// PAIR-NEXT: %[[FIRST:.+]] = arith.addi %[[W2]], %[[RANK]] : i32
// PAIR-NEXT: scf.for %[[ROW:.+]] = %[[FIRST]] to %arg5 step %c8_i32
// PAIR-COUNT-4: memref.load %arg0[
// PAIR: memref.load %arg1[
// PAIR-COUNT-4: memref.load %arg0[
// PAIR: memref.load %arg1[
// PAIR: arith.maxnumf
// PAIR: llvm.intr.exp2
// PAIR: llvm.intr.exp2
// PAIR: llvm.intr.fma
// PAIR: llvm.intr.log2
// PAIR: arith.truncf %{{.+}} : vector<2xf32> to vector<2xbf16>
// PAIR: memref.store %{{.+}}, %arg2[%{{.+}}] : memref<?xi32>
// PAIR: memref.store %{{.+}}, %arg3[%{{.+}}] : memref<?xf32>
// PAIR-NOT: nvvm.
// PAIR: return

// BADFORM: flash-test-decode-merge: form must be fused, kernel or pair
// BADDIM: flash-test-decode-merge: head-dim must be 64, 128 or 256 (the decode kernels')
// BADTYPE: flash-test-decode-merge: element-type must be f16 or bf16

module {
  func.func private @flash_decode_merge(memref<?xf32>, memref<?xf32>, memref<?xi32>, memref<?xf32>, i32, i32)
}
