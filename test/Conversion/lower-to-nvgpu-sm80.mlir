// RUN: flash-opt %s --split-input-file --flash-tile --flash-lower-to-nvgpu=arch=sm_80 | FileCheck %s
// RUN: flash-opt %s --split-input-file --flash-tile --flash-lower-to-nvgpu=arch=sm_80 | FileCheck %s --check-prefix=NOSCORES

// flash-lower-to-nvgpu (sm_80): one gpu.module + kernel per attention, the
// launch contract in flash.kernels, FlashAttention-2's data path:
// cp.async into shared memory, ldmatrix (transposed for V), mma.sync,
// quad shuffles for the row statistics, P kept in registers.

// No buffer of Nq×Nk (1000×1000) elements exists in the kernel either.
// NOSCORES-NOT: 1000x1000

// CHECK: module attributes {flash.kernels = [{
// CHECK-SAME: arch = "sm_80"
// CHECK-SAME: block_kv = 16 : i64, block_q = 64 : i64
// CHECK-SAME: causal = false
// CHECK-SAME: dynamic_shared_memory = 16384 : i64
// CHECK-SAME: element_type = "bf16"
// CHECK-SAME: head_dim = 64 : i64
// CHECK-SAME: kernel = "gqa_bf16"
// CHECK-SAME: threads = 128 : i64
// CHECK-SAME: writes_lse = true
// CHECK-SAME: gpu.container_module
// The host function is replaced by the kernel.
// CHECK-NOT: func.func @gqa_bf16
// CHECK: gpu.module @gqa_bf16_module
// CHECK: gpu.func @gqa_bf16(%[[Q:.+]]: !llvm.ptr<1>, %[[K:.+]]: !llvm.ptr<1>, %[[V:.+]]: !llvm.ptr<1>, %[[O:.+]]: !llvm.ptr<1>, %[[LSE:.+]]: !llvm.ptr<1>, %{{.+}}: i32, %[[HQ:.+]]: i32, %[[HKV:.+]]: i32, %[[NQ:.+]]: i32, %[[NK:.+]]: i32, %[[SCALE:.+]]: f32) kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// Shared memory: Q tile, two K stages, two V stages.
// CHECK: gpu.dynamic_shared_memory
// CHECK: memref.view {{.*}} to memref<4096xbf16, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<2048xbf16, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<2048xbf16, #gpu.address_space<workgroup>>
// GQA: kv-head = q-head / (Hq / Hkv).
// CHECK: %[[GROUP:.+]] = arith.divui %[[HQ]], %[[HKV]] : i32
// CHECK: arith.divui %{{.+}}, %[[GROUP]] : i32
// 16-byte cp.async, zero-filled past the end of the sequence.
// CHECK: nvgpu.device_async_copy {{.*}}, 8, %{{.+}} {bypassL1}
// CHECK: nvgpu.device_async_create_group
// The unmasked K/V loop: ldmatrix + mma.sync for S, exp2 softmax with quad
// shuffles, ldmatrix.trans for V, mma.sync for P·V; no mask selects.
// CHECK: scf.for
// CHECK: nvgpu.device_async_wait
// CHECK: gpu.barrier
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvvm.mma.sync {{.*}} multiplicandAPtxType = #nvvm.mma_type<bf16>{{.*}} shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK: gpu.shuffle  xor
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK: nvvm.mma.sync
// CHECK: scf.yield
// The masked loop compares key indices with the sequence end.
// CHECK: scf.for
// CHECK: arith.cmpi sle
// CHECK: arith.select %{{.+}}, %{{.+}}, %{{.+}} : f32
// CHECK: scf.yield
// Epilogue: O = acc / l as 32-bit pairs, valid rows only; LSE by lane 0 of a quad.
// CHECK: arith.divf
// CHECK: scf.if
// CHECK: memref.store %{{.+}}, %{{.+}}[%{{.+}}] : memref<1099511627776xi32, 1>
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"
// CHECK: memref.store %{{.+}}, %{{.+}}[%{{.+}}] : memref<1099511627776xf32, 1>
// CHECK: gpu.return
func.func @gqa_bf16(%q: tensor<2x8x1000x64xbf16>, %k: tensor<2x2x1000x64xbf16>, %v: tensor<2x2x1000x64xbf16>) -> (tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>) {
  %o, %l = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 16, stages = 2, warps = 4>}
      : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16> -> tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>
  return %o, %l : tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>
}

// -----

// Causal f16: Q tiles run in reverse (block x = last tile first), the
// masked loop also compares against the bottom-right diagonal, and f16
// operands reach mma.sync as vector<2xf16>.
// CHECK-LABEL: gpu.func @causal_f16
// CHECK: gpu.grid_dim  x
// CHECK: arith.subi
// CHECK: nvvm.mma.sync {{.*}} shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32)
// CHECK: arith.minsi
// CHECK: arith.cmpi sle
func.func @causal_f16(%q: tensor<1x4x300x128xf16>, %k: tensor<1x4x100x128xf16>, %v: tensor<1x4x100x128xf16>) -> tensor<1x4x300x128xf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 16, stages = 2, warps = 4>}
      : tensor<1x4x300x128xf16>, tensor<1x4x100x128xf16>, tensor<1x4x100x128xf16> -> tensor<1x4x300x128xf16>
  return %o : tensor<1x4x300x128xf16>
}
