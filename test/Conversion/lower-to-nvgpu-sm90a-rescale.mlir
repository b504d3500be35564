// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=no" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=AUTO
// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=no rescale=eager" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=EAGER
// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=no rescale=lazy" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=LAZY
// RUN: not flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="rescale=sometimes" --flash-lower-to-nvgpu=arch=sm_90a 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not flash-opt %s --split-input-file --flash-select-schedule="arch=sm_80 overwrite" --flash-tile --flash-select-kernel-form="rescale=lazy" --flash-lower-to-nvgpu=arch=sm_80 2>&1 | FileCheck %s --check-prefix=SM80

// How the online softmax rescales the O accumulator (sm_90a). Eager: at
// every K/V tile, acc *= α right after the P·V it follows has completed.
// Lazy: a row keeps its running max m unless the tile's max exceeds it by
// more than 8 in the exp2 domain ((m' − m)·c > 8, so P ≤ 2^8); a kept row
// has α = 1, and a warp none of whose rows needs α ≠ 1 (a warp vote) skips
// the multiplies. lazy places the skip where eager multiplies; lazy-late
// carries α to just before the next P·V (after the next Q·Kᵀ is issued).
// `auto` picks per D what measured fastest: lazy-late at D = 128, lazy at
// D = 256 and non-causal D = 64, eager for causal D = 64.

// BAD: for the --rescale option: Cannot find option named 'sometimes'!
// SM80: error: not supported yet: rescale=lazy on sm_80 (it rescales eagerly)

// D = 128, auto = lazy-late: in the steady-state loop the vote comes after
// the next Q·Kᵀ (wgmma.mma_async) and before the P·V (inline asm wgmma with
// P from registers), under a wgmma fence.
// AUTO-LABEL: kernel = "d128"
// AUTO-SAME: rescale = "lazy-late"
// AUTO: llvm.func @d128(
// AUTO: arith.constant 8.000000e+00 : f32
// AUTO: arith.cmpf ogt
// AUTO: scf.for
// AUTO: nvvm.wgmma.mma_async
// AUTO: %[[NEED:.+]] = nvvm.vote.sync  any %{{.+}}, %{{.+}} -> i1
// AUTO-NEXT: scf.if %[[NEED]]
// AUTO: arith.mulf
// AUTO: nvvm.wgmma.fence.aligned
// AUTO-NEXT: arith.constant
// AUTO: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async
// AUTO: nvvm.wgmma.wait.group.sync.aligned 0
// AUTO-NOT: nvvm.vote.sync
// AUTO: scf.yield
// Eager: no threshold, no vote.
// EAGER-LABEL: kernel = "d128"
// EAGER-SAME: rescale = "eager"
// EAGER: llvm.func @d128(
// EAGER-NOT: nvvm.vote.sync
// EAGER-NOT: arith.constant 8.000000e+00 : f32
// EAGER: llvm.return
// Lazy: the vote follows the wait for the P·V, at the end of the iteration.
// LAZY-LABEL: kernel = "d128"
// LAZY-SAME: rescale = "lazy"
// LAZY: llvm.func @d128(
// LAZY: scf.for
// LAZY: nvvm.wgmma.mma_async
// LAZY-NOT: nvvm.vote.sync
// LAZY: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async
// LAZY: nvvm.wgmma.wait.group.sync.aligned 1
// LAZY: nvvm.wgmma.wait.group.sync.aligned 0
// LAZY-NOT: scf.yield
// LAZY: %[[NEED:.+]] = nvvm.vote.sync  any %{{.+}}, %{{.+}} -> i1
// LAZY-NEXT: scf.if %[[NEED]]
// LAZY: arith.mulf
// LAZY: scf.yield
func.func @d128(%q: tensor<1x2x300x128xbf16>, %k: tensor<1x2x300x128xbf16>, %v: tensor<1x2x300x128xbf16>) -> tensor<1x2x300x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>}
      : tensor<1x2x300x128xbf16>, tensor<1x2x300x128xbf16>, tensor<1x2x300x128xbf16> -> tensor<1x2x300x128xbf16>
  return %o : tensor<1x2x300x128xbf16>
}

// -----

// auto: lazy at D = 256 and non-causal D = 64, eager for causal D = 64.
// AUTO-LABEL: kernel = "d256"
// AUTO-SAME: rescale = "lazy"
// AUTO-LABEL: kernel = "d64"
// AUTO-SAME: rescale = "lazy"
// AUTO-LABEL: kernel = "d64_causal"
// AUTO-SAME: rescale = "eager"
// AUTO: llvm.func @d256(
// AUTO: nvvm.wgmma.wait.group.sync.aligned 0
// AUTO: nvvm.vote.sync  any
// AUTO: llvm.func @d64(
// AUTO: nvvm.vote.sync  any
// AUTO: llvm.func @d64_causal(
// AUTO-NOT: nvvm.vote.sync
// AUTO: llvm.return
func.func @d256(%q: tensor<1x2x300x256xbf16>, %k: tensor<1x2x300x256xbf16>, %v: tensor<1x2x300x256xbf16>) -> tensor<1x2x300x256xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 80, stages = 2, warps = 12>}
      : tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16> -> tensor<1x2x300x256xbf16>
  return %o : tensor<1x2x300x256xbf16>
}
func.func @d64(%q: tensor<1x2x300x64xbf16>, %k: tensor<1x2x300x64xbf16>, %v: tensor<1x2x300x64xbf16>) -> tensor<1x2x300x64xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>}
      : tensor<1x2x300x64xbf16>, tensor<1x2x300x64xbf16>, tensor<1x2x300x64xbf16> -> tensor<1x2x300x64xbf16>
  return %o : tensor<1x2x300x64xbf16>
}
func.func @d64_causal(%q: tensor<1x2x300x64xbf16>, %k: tensor<1x2x300x64xbf16>, %v: tensor<1x2x300x64xbf16>) -> tensor<1x2x300x64xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>}
      : tensor<1x2x300x64xbf16>, tensor<1x2x300x64xbf16>, tensor<1x2x300x64xbf16> -> tensor<1x2x300x64xbf16>
  return %o : tensor<1x2x300x64xbf16>
}
