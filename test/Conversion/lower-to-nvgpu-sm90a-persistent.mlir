// RUN: flash-opt %s --split-input-file --flash-tile --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=AUTO
// RUN: flash-opt %s --split-input-file --flash-tile --flash-lower-to-nvgpu="arch=sm_90a persistent=no" | FileCheck %s --check-prefix=NO
// RUN: flash-opt %s --split-input-file --flash-tile --flash-lower-to-nvgpu="arch=sm_90a persistent=yes" | FileCheck %s --check-prefix=YES
// RUN: not flash-opt %s --split-input-file --flash-tile --flash-lower-to-nvgpu="arch=sm_90a persistent=maybe" 2>&1 | FileCheck %s --check-prefix=BAD

// The persistent grid (sm_90a): one block per SM loops over all tiles, with
// the ring of K/V stages and the Q slot's mbarrier phases carried across
// tiles. `auto` picks it for non-causal attention with D <= 128 (measured
// faster on the H200) and not for causal attention (round-robin tiles
// unbalance causal work).

// BAD: error: flash-lower-to-nvgpu: persistent must be auto, yes or no, got 'maybe'

// AUTO-LABEL: kernel = "plain"
// AUTO-SAME: persistent = true
// AUTO: llvm.func @plain(
// The tile loop: from blockIdx.x over all Q tiles, step gridDim.x, carrying
// (tile iteration, K/V tiles streamed so far).
// AUTO: %[[BX:.+]] = gpu.block_id  x
// AUTO: %[[FIRST:.+]] = arith.index_castui %[[BX]] : index to i32
// AUTO: %[[GX:.+]] = gpu.grid_dim  x
// AUTO: %[[STEP:.+]] = arith.index_castui %[[GX]] : index to i32
// AUTO: scf.for %{{.+}} = %[[FIRST]] to %{{.+}} step %[[STEP]] iter_args(%[[ITER:.+]] = %{{.+}}, %[[COUNT:.+]] = %{{.+}}) -> (i32, i32)  : i32
// The producer waits for the Q slot from the second tile on.
// AUTO: arith.cmpi sgt, %[[ITER]], %{{.+}} : i32
// AUTO: nvvm.mbarrier.try_wait.parity
// NO-LABEL: kernel = "plain"
// NO-SAME: persistent = false
// NO-NOT: step %{{.+}} iter_args(%{{.+}}, %{{.+}}) -> (i32, i32)
// NO: llvm.return
func.func @plain(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>) -> tensor<2x8x1000x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>}
      : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16> -> tensor<2x8x1000x128xbf16>
  return %o : tensor<2x8x1000x128xbf16>
}

// -----

// AUTO-LABEL: kernel = "causal"
// AUTO-SAME: persistent = false
// YES: grid = ["min(SMs, ceildiv(Nq, block_q)*Hq*B)", "1", "1"], head_dim = 128 : i64, kernel = "causal", persistent = true
func.func @causal(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>) -> tensor<2x8x1000x128xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>}
      : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16> -> tensor<2x8x1000x128xbf16>
  return %o : tensor<2x8x1000x128xbf16>
}
