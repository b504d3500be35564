// RUN: flash-opt %s --split-input-file --flash-tile --flash-lower-to-nvgpu="arch=sm_90a batch-maps=true" | FileCheck %s
// RUN: flash-opt %S/lower-to-nvgpu-backward-sm90a.mlir --split-input-file --flash-lower-to-nvgpu="arch=sm_90a batch-maps=true" | FileCheck %s --check-prefix=BWD
// RUN: not flash-opt %S/lower-to-nvgpu-sm80.mlir --split-input-file --flash-tile --flash-lower-to-nvgpu="arch=sm_80 batch-maps=true" 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not flash-opt %S/lower-to-nvgpu-decode-sm90a.mlir --split-input-file --flash-lower-to-nvgpu="arch=sm_90a batch-maps=true" 2>&1 | FileCheck %s --check-prefix=DECODE

// flash-lower-to-nvgpu's batch-maps option (sm_90a): the tensor maps are
// rank 4 over (D, N, H, B) and every TMA load and store addresses its box at
// four coordinates (column, row, head within the batch entry, batch entry),
// so a tensor's batch has its own stride (B×N×H×D views of any B in one
// launch). Without the option the maps are rank 3 over (D, N, B·H)
// (lower-to-nvgpu-sm90a.mlir), the shipped kernels.

// CHECK: tensor_maps = [{box = [64, 128, 1, 1], dims = ["D", "N", "H", "B"], swizzle = "128B", tensor = "q"}, {box = [64, 64, 1, 1], dims = ["D", "N", "H", "B"], swizzle = "128B", tensor = "k"}, {box = [64, 64, 1, 1], dims = ["D", "N", "H", "B"], swizzle = "128B", tensor = "v"}, {box = [64, 64, 1, 1], dims = ["D", "N", "H", "B"], swizzle = "128B", tensor = "o"}]
// CHECK: llvm.func @batch_maps(%[[TMQ:.+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<16 x i64>, nvvm.grid_constant}, %[[TMK:.+]]: !llvm.ptr {{.*}}nvvm.grid_constant}, %[[TMV:.+]]: !llvm.ptr {{.*}}nvvm.grid_constant}, %[[TMO:.+]]: !llvm.ptr {{.*}}nvvm.grid_constant}
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMQ]], %{{.+}}, box[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMK]], %{{.+}}, box[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMV]], %{{.+}}, box[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}]
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[TMO]], %{{.+}}, box[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}]
// CHECK-NOT: box[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}]
func.func @batch_maps(%q: tensor<2x8x512x128xbf16>, %k: tensor<2x2x512x128xbf16>, %v: tensor<2x2x512x128xbf16>) -> tensor<2x8x512x128xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 64, stages = 2, warps = 12>} : tensor<2x8x512x128xbf16>, tensor<2x2x512x128xbf16>, tensor<2x2x512x128xbf16> -> tensor<2x8x512x128xbf16>
  return %o : tensor<2x8x512x128xbf16>
}

// The backward's main kernel: its six maps rank 4, its loads and stores at
// four coordinates.
// BWD: dims = ["D", "N", "H", "B"], swizzle = "128B", tensor = "q"}
// BWD-SAME: tensor = "k"}
// BWD-SAME: dims = ["D", "N", "H", "B"], swizzle = "128B", tensor = "dv"}]
// BWD: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, box[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}]
// BWD-NOT: box[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}]

// sm_80's kernels compute addresses; split-KV and paged kernels keep their
// own addressing: refused, naming the option.
// SM80: error: not supported yet: batch-maps for sm_80 kernels
// DECODE: error: not supported yet: batch-maps for sm_90a split-KV/paged kernels
