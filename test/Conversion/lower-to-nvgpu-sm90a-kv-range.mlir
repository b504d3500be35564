// RUN: flash-opt %s --split-input-file --flash-tile --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=AUTO
// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="kv-range=block" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=BLOCK
// RUN: not flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="kv-range=warpgroup ping-pong=no" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=NOPP
// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=yes" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=PERS
// RUN: not flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="kv-range=warpgroup" --flash-lower-to-nvgpu=arch=sm_90a 2>&1 | FileCheck %s --check-prefix=NONCAUSAL
// RUN: not flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="kv-range=rows" --flash-lower-to-nvgpu=arch=sm_90a 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not flash-opt %s --split-input-file --flash-select-schedule="arch=sm_80 overwrite" --flash-tile --flash-select-kernel-form="kv-range=warpgroup" --flash-lower-to-nvgpu=arch=sm_80 2>&1 | FileCheck %s --check-prefix=SM80

// Which K/V tiles each consumer warpgroup visits in a causal block. With
// 128 query rows and K/V tiles of 64 keys, the block's last K/V tile lies
// wholly past the diagonal of the first warpgroup's 64 rows: `block` has
// that warpgroup compute it anyway (all of it masked), `warpgroup` ends its
// K/V loops at its own rows' tile count. The producer still loads the tile
// for the last warpgroup, and arrives on its empty barriers for the
// warpgroups that skip it (an mbarrier arrive with a count); a warpgroup
// that skips tiles takes their ping-pong turns without GEMMs (a loop of
// named-barrier sync and arrive), while its last P·V runs, so that the
// order of turns is unchanged. `auto`: warpgroup for D = 256 without a
// persistent grid.

// BAD: for the --kv-range option: Cannot find option named 'rows'!
// SM80: error: not supported yet: kv-range=warpgroup on sm_80 (its warps visit the block's K/V tiles)

// AUTO-LABEL: kernel = "causal256"
// AUTO-SAME: kv_range = "warpgroup"
// The producer's K/V loop: after each TMA load (K, then V) an arrive with a
// count, for the warpgroups that skip the tile.
// AUTO: llvm.func @causal256(
// AUTO: scf.for
// AUTO: nvvm.mbarrier.arrive.expect_tx
// AUTO: nvvm.cp.async.bulk.tensor.shared.cluster.global
// AUTO: scf.if
// AUTO-NEXT: arith.constant 128
// AUTO-NEXT: arith.muli
// AUTO: nvvm.mbarrier.arrive %{{.*}}, %{{.*}} : !llvm.ptr<3> -> i64
// AUTO: nvvm.mbarrier.arrive.expect_tx
// AUTO: nvvm.mbarrier.arrive %{{.*}}, %{{.*}} : !llvm.ptr<3> -> i64
// The consumer: the masked K/V loop ends at the warpgroup's tile count
// (OWN); the turns from there to the block's count are taken without GEMMs,
// just before the wait for the last P·V.
// AUTO: } else {
// AUTO: scf.for
// AUTO: = scf.for %{{.*}} = %{{.*}} to %[[OWN:[0-9]+]] step
// AUTO: {{^ +}}scf.for %{{.*}} = %[[OWN]] to %{{.*}} step
// AUTO-NOT: nvvm.wgmma
// AUTO: nvvm.barrier id
// AUTO-NOT: nvvm.wgmma
// AUTO: nvvm.barrier.arrive
// AUTO-NEXT: }
// AUTO-NEXT: nvvm.wgmma.wait.group.sync.aligned 0

// BLOCK-LABEL: kernel = "causal256"
// BLOCK-SAME: kv_range = "block"
// BLOCK: llvm.func @causal256(
// BLOCK-NOT: nvvm.mbarrier.arrive %{{.*}}, %{{.*}} : !llvm.ptr<3> -> i64
// The consumers (after the producer's branch) have no loop of idle turns
// (no scf.for without results).
// BLOCK: } else {
// BLOCK-NOT: {{^ +}}scf.for
// BLOCK: llvm.return

// Without ping-pong there are no turns to keep: the producer's arrivals
// remain, the loop of idle turns goes. (The non-causal kernel below is an
// error with kv-range=warpgroup, hence `not`.)
// NOPP-LABEL: kernel = "causal256"
// NOPP-SAME: kv_range = "warpgroup"
// NOPP: nvvm.mbarrier.arrive %{{.*}}, %{{.*}} : !llvm.ptr<3> -> i64
// NOPP: } else {
// NOPP-NOT: {{^ +}}scf.for
// NOPP: llvm.return

// The persistent form keeps the block's range under auto (it spills with
// the warpgroup's, 36-120 bytes).
// PERS-LABEL: kernel = "causal256"
// PERS-SAME: kv_range = "block"
func.func @causal256(%q: tensor<2x4x1000x256xbf16>, %k: tensor<2x4x1000x256xbf16>, %v: tensor<2x4x1000x256xbf16>) -> tensor<2x4x1000x256xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 64, stages = 2, warps = 12>}
      : tensor<2x4x1000x256xbf16>, tensor<2x4x1000x256xbf16>, tensor<2x4x1000x256xbf16> -> tensor<2x4x1000x256xbf16>
  return %o : tensor<2x4x1000x256xbf16>
}

// -----

// Causal D = 128 with K/V tiles as wide as the Q tile: the block's range
// under auto, where the warpgroup's measured slower (no tile to skip).
// AUTO-LABEL: kernel = "causal128"
// AUTO-SAME: kv_range = "block"
// AUTO: llvm.func @causal128(
// AUTO-NOT: nvvm.mbarrier.arrive %{{.*}}, %{{.*}} : !llvm.ptr<3> -> i64
// AUTO: llvm.return
func.func @causal128(%q: tensor<1x4x777x128xf16>, %k: tensor<1x4x777x128xf16>, %v: tensor<1x4x777x128xf16>) -> tensor<1x4x777x128xf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>}
      : tensor<1x4x777x128xf16>, tensor<1x4x777x128xf16>, tensor<1x4x777x128xf16> -> tensor<1x4x777x128xf16>
  return %o : tensor<1x4x777x128xf16>
}

// -----

// Non-causal: every warpgroup's rows see the block's tiles.
// NONCAUSAL: error: kv-range=warpgroup needs causal attention and two or more consumer warpgroups (otherwise every warpgroup's rows see the block's K/V tiles)
// AUTO-LABEL: kernel = "plain256"
// AUTO-SAME: kv_range = "block"
func.func @plain256(%q: tensor<1x2x300x256xbf16>, %k: tensor<1x2x300x256xbf16>, %v: tensor<1x2x300x256xbf16>) -> tensor<1x2x300x256xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 64, stages = 2, warps = 12>}
      : tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16> -> tensor<1x2x300x256xbf16>
  return %o : tensor<1x2x300x256xbf16>
}
