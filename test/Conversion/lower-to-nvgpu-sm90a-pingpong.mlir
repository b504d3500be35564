// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=no" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s
// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=no ping-pong=no" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=OFF
// RUN: not flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="ping-pong=often" --flash-lower-to-nvgpu=arch=sm_90a 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="ping-pong=yes" --flash-lower-to-nvgpu=arch=sm_90a 2>&1 | FileCheck %s --check-prefix=YES

// Ping-pong (sm_90a): consumer warpgroup c waits on named barrier 1 + c for
// its turn before it issues GEMMs and hands the turn to consumer c + 1
// (mod C) on barrier 1 + (c + 1) mod C after them, so that one warpgroup's
// softmax and epilogue run while another's GEMMs use the tensor cores. Each
// barrier counts 256 threads: the warpgroup that waits and the one that
// arrives. `auto` turns it on with two or more consumer warpgroups.

// BAD: for the --ping-pong option: Cannot find option named 'often'!

// CHECK-LABEL: kernel = "two_consumers"
// CHECK-SAME: ping_pong = true
// CHECK: nvvm.setmaxregister  increase 240
// The last consumer hands the first turn to consumer 0 (barrier 1).
// CHECK: %[[LAST:.+]] = arith.cmpi eq, %[[C:.+]], %c1_i32{{.*}} : i32
// CHECK: scf.if %[[LAST]] {
// CHECK: nvvm.barrier.arrive id = %c1_i32{{.*}} number_of_threads = %c256_i32
// Prologue: turn, S_0 = Q·K_0ᵀ issued, turn handed on, then the wait.
// CHECK: %[[MINE:.+]] = arith.addi %[[C]], %c1_i32{{.*}} : i32
// CHECK: nvvm.barrier id = %[[MINE]] number_of_threads = %c256_i32
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: %[[SUCC:.+]] = arith.remui %{{.+}}, %c2_i32{{.*}} : i32
// CHECK: %[[NEXTBAR:.+]] = arith.addi %[[SUCC]], %c1_i32{{.*}} : i32
// CHECK: nvvm.barrier.arrive id = %[[NEXTBAR]] number_of_threads = %c256_i32
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// Steady state: both GEMMs (S_j and P_{j-1}·V_{j-1}) inside one turn; the
// softmax of S_j after it.
// CHECK: scf.for
// CHECK: nvvm.barrier id =
// CHECK: nvvm.wgmma.mma_async
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.barrier.arrive id =
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK: scf.yield
// Drain: the last P·V in a turn of its own.
// CHECK: nvvm.barrier id =
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: nvvm.barrier.arrive id =
// CHECK: llvm.return
// OFF-LABEL: kernel = "two_consumers"
// OFF-SAME: ping_pong = false
// OFF-NOT: nvvm.barrier.arrive
// OFF-NOT: nvvm.barrier id = %{{.+}} number_of_threads = %c256
// OFF: llvm.return
func.func @two_consumers(%q: tensor<1x4x1000x128xbf16>, %k: tensor<1x4x1000x128xbf16>, %v: tensor<1x4x1000x128xbf16>) -> tensor<1x4x1000x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>}
      : tensor<1x4x1000x128xbf16>, tensor<1x4x1000x128xbf16>, tensor<1x4x1000x128xbf16> -> tensor<1x4x1000x128xbf16>
  return %o : tensor<1x4x1000x128xbf16>
}

// -----

// Three consumers pass the turn around a ring of three barriers.
// CHECK-LABEL: kernel = "three_consumers"
// CHECK-SAME: ping_pong = true
// CHECK: arith.cmpi eq, %{{.+}}, %c2_i32{{.*}} : i32
// CHECK: nvvm.barrier.arrive id = %c1_i32{{.*}} number_of_threads = %c256_i32
// CHECK: arith.remui %{{.+}}, %c3_i32{{.*}} : i32
func.func @three_consumers(%q: tensor<1x4x1000x64xbf16>, %k: tensor<1x4x1000x64xbf16>, %v: tensor<1x4x1000x64xbf16>) -> tensor<1x4x1000x64xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 192, block_kv = 128, stages = 2, warps = 16>}
      : tensor<1x4x1000x64xbf16>, tensor<1x4x1000x64xbf16>, tensor<1x4x1000x64xbf16> -> tensor<1x4x1000x64xbf16>
  return %o : tensor<1x4x1000x64xbf16>
}

// -----

// One consumer has no partner: `auto` leaves ping-pong off, `yes` is refused.
// YES: lower-to-nvgpu-sm90a-pingpong.mlir:[[@LINE+7]]:8: error: not supported yet: ping-pong with one consumer warpgroup (block_q = 64); it needs two or more
// CHECK-LABEL: kernel = "one_consumer"
// CHECK-SAME: ping_pong = false
// CHECK-NOT: nvvm.barrier.arrive
// CHECK-NOT: nvvm.barrier id = %{{.+}} number_of_threads = %c256
// CHECK: llvm.return
func.func @one_consumer(%q: tensor<1x4x1000x64xbf16>, %k: tensor<1x4x1000x64xbf16>, %v: tensor<1x4x1000x64xbf16>) -> tensor<1x4x1000x64xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 8>}
      : tensor<1x4x1000x64xbf16>, tensor<1x4x1000x64xbf16>, tensor<1x4x1000x64xbf16> -> tensor<1x4x1000x64xbf16>
  return %o : tensor<1x4x1000x64xbf16>
}
