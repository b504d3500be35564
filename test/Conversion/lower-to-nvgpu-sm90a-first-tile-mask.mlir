// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=no" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=AUTO
// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=no first-tile-mask=branch" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=BRANCH
// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=no first-tile-mask=always" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=ALWAYS
// RUN: not flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="first-tile-mask=never" --flash-lower-to-nvgpu=arch=sm_90a 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not flash-opt %s --split-input-file --flash-select-schedule="arch=sm_80 overwrite" --flash-tile --flash-select-kernel-form="first-tile-mask=branch" --flash-lower-to-nvgpu=arch=sm_80 2>&1 | FileCheck %s --check-prefix=SM80

// The mask of a Q tile's first K/V tile (sm_90a). `always`: the scores of
// tile 0 go through the mask (a compare and a select per score) whether or
// not the tile is ragged or crosses the diagonal. `branch`: right after the
// wait for S_0 and the release of K_0, a uniform branch on "no tile is
// unmasked" (numUnmasked <= 0) runs the mask and the first softmax, or the
// first softmax alone; the two arms merge the prologue state (m and l of
// the thread's two rows, P as 32 packed words at Bc = 128). `auto` takes
// the branch for causal attention and D = 64, where it measured faster.

// BAD: for the --first-tile-mask option: Cannot find option named 'never'!
// SM80: error: not supported yet: first-tile-mask=branch on sm_80 (it masks the first K/V tile always)

// BRANCH: first_tile_mask = "branch"
// BRANCH-SAME: kernel = "d128"
// BRANCH: llvm.func @d128(
// BRANCH: nvvm.wgmma.wait.group.sync.aligned 0
// BRANCH-NEXT: arith.constant
// BRANCH: nvvm.mbarrier.arrive
// BRANCH-NEXT: %[[ZERO:.+]] = arith.constant 0 : i32
// BRANCH-NEXT: %[[FIRST:.+]] = arith.cmpi sle, %{{.+}}, %[[ZERO]] : i32
// BRANCH-NEXT: %{{.+}}:36 = scf.if %[[FIRST]] -> (f32, f32, f32, f32, i32,
// The mask (key 2t + 1 against the row's limit, -inf where it is past).
// BRANCH: arith.cmpi sle, %c1_i32{{.*}}, %{{.+}} : i32
// BRANCH-NEXT: arith.select %{{.+}}, %{{.+}}, %cst{{.*}} : f32
// BRANCH: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// BRANCH: scf.yield
// BRANCH-NEXT: } else {
// The other arm: the softmax without the mask.
// BRANCH-NOT: arith.cmpi sle
// BRANCH: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// BRANCH: scf.yield
// BRANCH-NEXT: }
// ALWAYS: first_tile_mask = "always"
// ALWAYS-SAME: kernel = "d128"
// ALWAYS: llvm.func @d128(
// ALWAYS: nvvm.wgmma.wait.group.sync.aligned 0
// ALWAYS: nvvm.mbarrier.arrive
// ALWAYS-NOT: scf.if
// ALWAYS: arith.cmpi sle, %c1_i32{{.*}}, %{{.+}} : i32
// ALWAYS-NEXT: arith.select %{{.+}}, %{{.+}}, %cst{{.*}} : f32
// AUTO: first_tile_mask = "always"
// AUTO-SAME: kernel = "d128"
func.func @d128(%q: tensor<1x2x300x128xbf16>, %k: tensor<1x2x300x128xbf16>, %v: tensor<1x2x300x128xbf16>) -> tensor<1x2x300x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>}
      : tensor<1x2x300x128xbf16>, tensor<1x2x300x128xbf16>, tensor<1x2x300x128xbf16> -> tensor<1x2x300x128xbf16>
  return %o : tensor<1x2x300x128xbf16>
}

// -----

// auto: the branch for causal attention (any D) and for D = 64; the mask
// always for non-causal D = 128 and 256.
// AUTO: first_tile_mask = "always"
// AUTO-SAME: kernel = "d256"
// AUTO: first_tile_mask = "branch"
// AUTO-SAME: kernel = "d256_causal"
// AUTO: first_tile_mask = "branch"
// AUTO-SAME: kernel = "d64"
// AUTO: llvm.func @d256(
// AUTO: nvvm.wgmma.wait.group.sync.aligned 0
// AUTO: nvvm.mbarrier.arrive
// AUTO-NOT: scf.if
// AUTO: arith.select
// AUTO: llvm.func @d256_causal(
// AUTO: nvvm.wgmma.wait.group.sync.aligned 0
// AUTO: nvvm.mbarrier.arrive
// AUTO-NEXT: %[[ZERO:.+]] = arith.constant 0 : i32
// AUTO-NEXT: %[[FIRST:.+]] = arith.cmpi sle, %{{.+}}, %[[ZERO]] : i32
// AUTO-NEXT: scf.if %[[FIRST]]
// AUTO: llvm.func @d64(
// AUTO: nvvm.wgmma.wait.group.sync.aligned 0
// AUTO: nvvm.mbarrier.arrive
// AUTO-NEXT: %[[ZERO:.+]] = arith.constant 0 : i32
// AUTO-NEXT: %[[FIRST:.+]] = arith.cmpi sle, %{{.+}}, %[[ZERO]] : i32
// AUTO-NEXT: scf.if %[[FIRST]]
func.func @d256(%q: tensor<1x2x300x256xbf16>, %k: tensor<1x2x300x256xbf16>, %v: tensor<1x2x300x256xbf16>) -> tensor<1x2x300x256xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 80, stages = 2, warps = 12>}
      : tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16> -> tensor<1x2x300x256xbf16>
  return %o : tensor<1x2x300x256xbf16>
}
func.func @d256_causal(%q: tensor<1x2x300x256xbf16>, %k: tensor<1x2x300x256xbf16>, %v: tensor<1x2x300x256xbf16>) -> tensor<1x2x300x256xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 80, stages = 2, warps = 12>}
      : tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16> -> tensor<1x2x300x256xbf16>
  return %o : tensor<1x2x300x256xbf16>
}
func.func @d64(%q: tensor<1x2x300x64xbf16>, %k: tensor<1x2x300x64xbf16>, %v: tensor<1x2x300x64xbf16>) -> tensor<1x2x300x64xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>}
      : tensor<1x2x300x64xbf16>, tensor<1x2x300x64xbf16>, tensor<1x2x300x64xbf16> -> tensor<1x2x300x64xbf16>
  return %o : tensor<1x2x300x64xbf16>
}
