// RUN: flash-opt %s --flash-test-kernel-math="form=sm90a rescale=lazy causal=1 lse=1 output=staged" | FileCheck %s
// RUN: flash-opt %s --flash-test-kernel-math="form=sm90a rescale=lazy causal=1 lse=1" | FileCheck %s --check-prefix=NOGPU
// RUN: flash-opt %s --flash-test-kernel-math="form=sm90a layout=row rescale=lazy causal=1 lse=1 output=staged" | FileCheck %s --check-prefix=ROW
// RUN: not flash-opt %s --flash-test-kernel-math="form=sm80 rescale=lazy" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not flash-opt %s --flash-test-kernel-math="layout=rows" 2>&1 | FileCheck %s --check-prefix=BADLAYOUT

// flash-test-kernel-math (test/lib/TestKernelMath.cpp) defines the declared
// @flash_kernel_math with KernelBuilder's math on host lanes: one warp is
// vector<32 x T>, and the warp-level operations are their host forms
// (python/tests/test_kernel_math.py runs it against the oracle).

// Nothing of the GPU is left.
// NOGPU-NOT: gpu.
// NOGPU-NOT: nvvm.

// CHECK-LABEL: func.func private @flash_kernel_math(
// Quad reductions: lane l takes lane l ^ 1, then l ^ 2.
// CHECK: vector.shuffle %{{.+}}, %{{.+}} [1, 0, 3, 2, 5, 4, 7, 6,
// CHECK: vector.shuffle %{{.+}}, %{{.+}} [2, 3, 0, 1, 6, 7, 4, 5,
// exp2 on all lanes.
// CHECK: llvm.intr.exp2(%{{.+}}) : (vector<32xf32>) -> vector<32xf32>
// P as 16-bit pairs, lane l's pair at 2l, 2l + 1.
// CHECK: vector.shuffle %{{.+}}, %{{.+}} [0, 32, 1, 33, 2, 34,
// CHECK: arith.truncf %{{.+}} : vector<64xf32> to vector<64xbf16>
// The lazy rescale's warp vote: an or over the lanes guards the multiplies.
// CHECK: %[[ANY:.+]] = vector.reduction <or>, %{{.+}} : vector<32xi1> into i1
// CHECK-NEXT: scf.if %[[ANY]]
// The epilogue's words, and the LSE stored by lanes t = 0 of rows < Nq.
// CHECK: vector.bitcast %{{.+}} : vector<64xbf16> to vector<32xi32>
// CHECK: %[[LSE_MASK:.+]] = arith.andi %{{.+}}, %{{.+}} : vector<32xi1>
// CHECK: vector.scatter %{{.+}}[%{{.+}}] [%{{.+}}], %[[LSE_MASK]], %{{.+}} : memref<?xf32>, vector<32xindex>, vector<32xi1>, vector<32xf32>

// The row-per-thread layout (tcgen05.ld 32x32b, AccumulatorLayout::
// RowPerThread): a lane holds whole rows, so no row statistic is reduced
// across lanes (no xor shuffles of the lanes), only P is interleaved into
// pairs; the LSE is stored by every lane of a row < Nq.
// ROW-LABEL: func.func private @flash_kernel_math(
// ROW-NOT: vector.shuffle %{{.+}}, %{{.+}} [1, 0, 3, 2,
// ROW-NOT: vector.shuffle %{{.+}}, %{{.+}} [2, 3, 0, 1,
// ROW: llvm.intr.exp2(%{{.+}}) : (vector<32xf32>) -> vector<32xf32>
// ROW-NOT: vector.shuffle %{{.+}}, %{{.+}} [1, 0, 3, 2,
// ROW-NOT: vector.shuffle %{{.+}}, %{{.+}} [2, 3, 0, 1,
// ROW: vector.shuffle %{{.+}}, %{{.+}} [0, 32, 1, 33, 2, 34,
// ROW-NOT: vector.shuffle %{{.+}}, %{{.+}} [1, 0, 3, 2,
// ROW-NOT: vector.shuffle %{{.+}}, %{{.+}} [2, 3, 0, 1,
// ROW: %[[ANY:.+]] = vector.reduction <or>, %{{.+}} : vector<32xi1> into i1
// ROW-NOT: vector.shuffle %{{.+}}, %{{.+}} [1, 0, 3, 2,
// ROW-NOT: vector.shuffle %{{.+}}, %{{.+}} [2, 3, 0, 1,
// ROW: vector.scatter %{{.+}}[%{{.+}}] [%{{.+}}], %{{.+}}, %{{.+}} : memref<?xf32>, vector<32xindex>, vector<32xi1>, vector<32xf32>
// ROW-NOT: vector.shuffle %{{.+}}, %{{.+}} [1, 0, 3, 2,
// ROW-NOT: vector.shuffle %{{.+}}, %{{.+}} [2, 3, 0, 1,
// ROW: return

// BAD: flash-test-kernel-math: sm80 rescales eagerly
// BADLAYOUT: flash-test-kernel-math: layout must be quad or row

module {
  func.func private @flash_kernel_math(memref<?xbf16>, memref<?xbf16>, memref<?xbf16>, memref<?xi32>, memref<?xf32>, i32, i32, i32, i32, i32, f32)
}
