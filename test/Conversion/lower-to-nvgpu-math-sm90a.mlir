// RUN: flash-opt %s --flash-tile --flash-select-kernel-form="persistent=no rescale=eager" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefixes=CHECK,EAGER
// RUN: flash-opt %s --flash-tile --flash-select-kernel-form="persistent=yes rescale=eager" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefixes=CHECK,PIPE
// RUN: flash-opt %s --flash-tile --flash-select-kernel-form="persistent=no rescale=lazy" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefixes=CHECK,LAZY
// RUN: flash-opt %s --flash-tile --flash-select-kernel-form="persistent=no rescale=lazy-late" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefixes=CHECK,LATE

// The constants and data flow of the sm_90a kernel's math on every rescale
// path: eager (one tile per block), eager in the persistent grid whose
// tiles are pipelined (PIPE), lazy and lazy-late. Named captures tie each
// value to the kernel argument or op it must come from. (The numbers are
// checked on the CPU by python/tests/test_kernel_math.py.)

// Causal, Nq = 300 > Nk = 100 (run-time sizes), 128x64 tiles, two consumer
// warpgroups.
// CHECK-LABEL: llvm.func @causal(
// CHECK-SAME: %[[NQ:[^:]+]]: i32, %[[NK:[^:]+]]: i32, %[[SCALE:[^:]+]]: f32{{[,)]}}
// The scale folded into exp2 once: c = scale·log2(e).
// CHECK: %[[LOG2E:.+]] = arith.constant 1.44269502 : f32
// CHECK-NEXT: %[[C:.+]] = arith.mulf %[[SCALE]], %[[LOG2E]] : f32
// The consumers' K/V range: the diagonal is offset by Nk − Nq, and
// kvEnd = clamp(min(qStart + Br, Nq) + Nk − Nq, 0, Nk).
// CHECK: %[[OFF:.+]] = arith.subi %[[NK]], %[[NQ]] : i32
// CHECK-NEXT: %[[BR:.+]] = arith.constant 128 : i32
// CHECK-NEXT: %[[QEND:.+]] = arith.addi %[[QSTART:.+]], %[[BR]] : i32
// CHECK-NEXT: %[[ROWS_END:.+]] = arith.minsi %[[QEND]], %[[NQ]] : i32
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[DIAG_END:.+]] = arith.addi %[[ROWS_END]], %[[OFF]] : i32
// CHECK-NEXT: %[[NONNEG:.+]] = arith.maxsi %[[DIAG_END]], %[[ZERO]] : i32
// CHECK-NEXT: %[[KV_END:.+]] = arith.minsi %[[NONNEG]], %[[NK]] : i32
// CHECK: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-NEXT: %[[FIRST_DIAG:.+]] = arith.addi %[[QSTART]], %[[OFF]] : i32
// CHECK-NEXT: %[[FIRST_KEYS:.+]] = arith.addi %[[FIRST_DIAG]], %[[ONE]] : i32
// The mask of tile 0 (prologue, once S_0 has landed): the limit of a
// lane's column is row + (Nk − Nq) + g − 2t.
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: %[[MASK_OFF:.+]] = arith.subi %[[NK]], %[[NQ]] : i32
// CHECK-NEXT: %[[ROW_DIAG:.+]] = arith.addi %{{.+}}, %[[MASK_OFF]] : i32
// CHECK-NEXT: %[[LANE_DIAG:.+]] = arith.addi %[[ROW_DIAG]], %{{.+}} : i32
// CHECK-NEXT: %[[REL_DIAG:.+]] = arith.subi %[[LANE_DIAG]], %{{.+}} : i32

// Eager, one tile per block: α = exp2(m·c − m'·c) from the running max m
// (a loop-carried value), and acc·α (after the P·V wait) is what the loop
// carries on, in the unmasked loop and in the masked one.
// EAGER: scf.for %{{.+}} iter_args(
// EAGER: %[[NEW_MAX1:.+]] = arith.maxnumf %[[M1:arg[0-9]+]], %{{.+}} : f32
// EAGER-NEXT: %[[EMPTY1:.+]] = arith.cmpf oeq, %[[NEW_MAX1]], %{{.+}} : f32
// EAGER-NEXT: %[[SHIFT_C1:.+]] = arith.mulf %[[NEW_MAX1]], %[[C]] : f32
// EAGER-NEXT: %[[SHIFT1:.+]] = arith.select %[[EMPTY1]], %{{.+}}, %[[SHIFT_C1]] : f32
// EAGER-NEXT: %[[NEG_SHIFT1:.+]] = arith.negf %[[SHIFT1]] : f32
// EAGER-NEXT: %[[ALPHA_ARG1:.+]] = llvm.intr.fma(%[[M1]], %[[C]], %[[NEG_SHIFT1]]) : (f32, f32, f32) -> f32
// EAGER-NEXT: %[[ALPHA1:.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[ALPHA_ARG1]]) : (f32) -> f32
// EAGER-NEXT: %[[P_ARG1:.+]] = llvm.intr.fma(%{{.+}}, %[[C]], %[[NEG_SHIFT1]]) : (f32, f32, f32) -> f32
// EAGER: nvvm.wgmma.wait.group.sync.aligned 0
// EAGER: %[[SCALED1:.+]] = arith.mulf %{{.+}}, %[[ALPHA1]] : f32
// EAGER: scf.yield %[[NEW_MAX1]], %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[SCALED1]],
// EAGER: scf.for %{{.+}} iter_args(
// EAGER: %[[NEW_MAX2:.+]] = arith.maxnumf %[[M2:arg[0-9]+]], %{{.+}} : f32
// EAGER-NEXT: %[[EMPTY2:.+]] = arith.cmpf oeq, %[[NEW_MAX2]], %{{.+}} : f32
// EAGER-NEXT: %[[SHIFT_C2:.+]] = arith.mulf %[[NEW_MAX2]], %[[C]] : f32
// EAGER-NEXT: %[[SHIFT2:.+]] = arith.select %[[EMPTY2]], %{{.+}}, %[[SHIFT_C2]] : f32
// EAGER-NEXT: %[[NEG_SHIFT2:.+]] = arith.negf %[[SHIFT2]] : f32
// EAGER-NEXT: %[[ALPHA_ARG2:.+]] = llvm.intr.fma(%[[M2]], %[[C]], %[[NEG_SHIFT2]]) : (f32, f32, f32) -> f32
// EAGER-NEXT: %[[ALPHA2:.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[ALPHA_ARG2]]) : (f32) -> f32
// EAGER-NEXT: %[[P_ARG2:.+]] = llvm.intr.fma(%{{.+}}, %[[C]], %[[NEG_SHIFT2]]) : (f32, f32, f32) -> f32
// EAGER: nvvm.wgmma.wait.group.sync.aligned 0
// EAGER: %[[SCALED2:.+]] = arith.mulf %{{.+}}, %[[ALPHA2]] : f32
// EAGER: scf.yield %[[NEW_MAX2]], %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[SCALED2]],

// The same in the persistent grid with pipelined tiles.
// PIPE: scf.for %{{.+}} iter_args(
// PIPE: %[[NEW_MAX1:.+]] = arith.maxnumf %[[M1:arg[0-9]+]], %{{.+}} : f32
// PIPE-NEXT: %[[EMPTY1:.+]] = arith.cmpf oeq, %[[NEW_MAX1]], %{{.+}} : f32
// PIPE-NEXT: %[[SHIFT_C1:.+]] = arith.mulf %[[NEW_MAX1]], %[[C]] : f32
// PIPE-NEXT: %[[SHIFT1:.+]] = arith.select %[[EMPTY1]], %{{.+}}, %[[SHIFT_C1]] : f32
// PIPE-NEXT: %[[NEG_SHIFT1:.+]] = arith.negf %[[SHIFT1]] : f32
// PIPE-NEXT: %[[ALPHA_ARG1:.+]] = llvm.intr.fma(%[[M1]], %[[C]], %[[NEG_SHIFT1]]) : (f32, f32, f32) -> f32
// PIPE-NEXT: %[[ALPHA1:.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[ALPHA_ARG1]]) : (f32) -> f32
// PIPE-NEXT: %[[P_ARG1:.+]] = llvm.intr.fma(%{{.+}}, %[[C]], %[[NEG_SHIFT1]]) : (f32, f32, f32) -> f32
// PIPE: nvvm.wgmma.wait.group.sync.aligned 0
// PIPE: %[[SCALED1:.+]] = arith.mulf %{{.+}}, %[[ALPHA1]] : f32
// PIPE: scf.yield %[[NEW_MAX1]], %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[SCALED1]],
// PIPE: scf.for %{{.+}} iter_args(
// PIPE: %[[NEW_MAX2:.+]] = arith.maxnumf %[[M2:arg[0-9]+]], %{{.+}} : f32
// PIPE-NEXT: %[[EMPTY2:.+]] = arith.cmpf oeq, %[[NEW_MAX2]], %{{.+}} : f32
// PIPE-NEXT: %[[SHIFT_C2:.+]] = arith.mulf %[[NEW_MAX2]], %[[C]] : f32
// PIPE-NEXT: %[[SHIFT2:.+]] = arith.select %[[EMPTY2]], %{{.+}}, %[[SHIFT_C2]] : f32
// PIPE-NEXT: %[[NEG_SHIFT2:.+]] = arith.negf %[[SHIFT2]] : f32
// PIPE-NEXT: %[[ALPHA_ARG2:.+]] = llvm.intr.fma(%[[M2]], %[[C]], %[[NEG_SHIFT2]]) : (f32, f32, f32) -> f32
// PIPE-NEXT: %[[ALPHA2:.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[ALPHA_ARG2]]) : (f32) -> f32
// PIPE-NEXT: %[[P_ARG2:.+]] = llvm.intr.fma(%{{.+}}, %[[C]], %[[NEG_SHIFT2]]) : (f32, f32, f32) -> f32
// PIPE: nvvm.wgmma.wait.group.sync.aligned 0
// PIPE: %[[SCALED2:.+]] = arith.mulf %{{.+}}, %[[ALPHA2]] : f32
// PIPE: scf.yield %[[NEW_MAX2]], %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[SCALED2]],

// Lazy: m grows only when (max(m, rowmax S) − m)·c > 8; α = 1 for a kept row;
// after the P·V wait a warp vote on α ≠ 1 guards acc·α, which the loop
// carries on.
// LAZY: scf.for %{{.+}} iter_args(
// LAZY: %[[TILE_MAX1:.+]] = arith.maxnumf %[[M1:arg[0-9]+]], %{{.+}} : f32
// LAZY-NEXT: %[[RISE1:.+]] = arith.subf %[[TILE_MAX1]], %[[M1]] : f32
// LAZY-NEXT: %[[RISE_C1:.+]] = arith.mulf %[[RISE1]], %[[C]] : f32
// LAZY-NEXT: %[[TAU1:.+]] = arith.constant 8.000000e+00 : f32
// LAZY-NEXT: %[[GROWS1:.+]] = arith.cmpf ogt, %[[RISE_C1]], %[[TAU1]] : f32
// LAZY-NEXT: %[[NEW_MAX1:.+]] = arith.select %[[GROWS1]], %[[TILE_MAX1]], %[[M1]] : f32
// LAZY: %[[NEG_SHIFT1:.+]] = arith.negf %{{.+}} : f32
// LAZY-NEXT: %[[ALPHA_ARG1:.+]] = llvm.intr.fma(%[[M1]], %[[C]], %[[NEG_SHIFT1]]) : (f32, f32, f32) -> f32
// LAZY-NEXT: %[[EXP1:.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[ALPHA_ARG1]]) : (f32) -> f32
// LAZY-NEXT: %[[ONE_F1:.+]] = arith.constant 1.000000e+00 : f32
// LAZY-NEXT: %[[ALPHA1:.+]] = arith.select %[[GROWS1]], %[[EXP1]], %[[ONE_F1]] : f32
// LAZY: nvvm.wgmma.wait.group.sync.aligned 0
// LAZY: %[[DIFFERS1:.+]] = arith.cmpf une, %[[ALPHA1]], %{{.+}} : f32
// LAZY: %[[ANY1:.+]] = nvvm.vote.sync  any %{{.+}}, %{{.+}} -> i1
// LAZY-NEXT: %[[RESCALED1:.+]]:32 = scf.if %[[ANY1]]
// LAZY-NEXT: arith.mulf %{{.+}}, %[[ALPHA1]] : f32
// LAZY: scf.yield %[[NEW_MAX1]], %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[RESCALED1]]#0,
// LAZY: scf.for %{{.+}} iter_args(
// LAZY: %[[TILE_MAX2:.+]] = arith.maxnumf %[[M2:arg[0-9]+]], %{{.+}} : f32
// LAZY-NEXT: %[[RISE2:.+]] = arith.subf %[[TILE_MAX2]], %[[M2]] : f32
// LAZY-NEXT: %[[RISE_C2:.+]] = arith.mulf %[[RISE2]], %[[C]] : f32
// LAZY-NEXT: %[[TAU2:.+]] = arith.constant 8.000000e+00 : f32
// LAZY-NEXT: %[[GROWS2:.+]] = arith.cmpf ogt, %[[RISE_C2]], %[[TAU2]] : f32
// LAZY-NEXT: %[[NEW_MAX2:.+]] = arith.select %[[GROWS2]], %[[TILE_MAX2]], %[[M2]] : f32
// LAZY: %[[NEG_SHIFT2:.+]] = arith.negf %{{.+}} : f32
// LAZY-NEXT: %[[ALPHA_ARG2:.+]] = llvm.intr.fma(%[[M2]], %[[C]], %[[NEG_SHIFT2]]) : (f32, f32, f32) -> f32
// LAZY-NEXT: %[[EXP2:.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[ALPHA_ARG2]]) : (f32) -> f32
// LAZY-NEXT: %[[ONE_F2:.+]] = arith.constant 1.000000e+00 : f32
// LAZY-NEXT: %[[ALPHA2:.+]] = arith.select %[[GROWS2]], %[[EXP2]], %[[ONE_F2]] : f32
// LAZY: nvvm.wgmma.wait.group.sync.aligned 0
// LAZY: %[[DIFFERS2:.+]] = arith.cmpf une, %[[ALPHA2]], %{{.+}} : f32
// LAZY: %[[ANY2:.+]] = nvvm.vote.sync  any %{{.+}}, %{{.+}} -> i1
// LAZY-NEXT: %[[RESCALED2:.+]]:32 = scf.if %[[ANY2]]
// LAZY-NEXT: arith.mulf %{{.+}}, %[[ALPHA2]] : f32
// LAZY: scf.yield %[[NEW_MAX2]], %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[RESCALED2]]#0,

// Lazy-late: the loop carries α; before the next P·V (under the wgmma
// fence) a vote on the carried α guards acc·α, and the P·V accumulates into
// the rescaled registers; the drain rescales by the last tile's α.
// LATE: %[[LOOP1:.+]]:54 = scf.for %{{.+}} iter_args({{.*}}, %[[PENDING1:arg[0-9]+]] = %{{[^,]+}}, %{{[^,]+}} = %{{[^,)]+}}) ->
// LATE: nvvm.wgmma.mma_async
// LATE: arith.cmpf une, %[[PENDING1]], %{{.+}} : f32
// LATE: %[[ANY1:.+]] = nvvm.vote.sync  any %{{.+}}, %{{.+}} -> i1
// LATE-NEXT: %[[RESCALED1:.+]]:32 = scf.if %[[ANY1]]
// LATE-NEXT: arith.mulf %{{.+}}, %[[PENDING1]] : f32
// LATE: nvvm.wgmma.fence.aligned
// LATE: llvm.inline_asm {{.*}}wgmma.mma_async.sync.aligned{{.*}}", {{.*}} %[[RESCALED1]]#0, %[[RESCALED1]]#1,
// LATE: %[[TILE_MAX1:.+]] = arith.maxnumf %[[M1:arg[0-9]+]], %{{.+}} : f32
// LATE-NEXT: %[[RISE1:.+]] = arith.subf %[[TILE_MAX1]], %[[M1]] : f32
// LATE-NEXT: %[[RISE_C1:.+]] = arith.mulf %[[RISE1]], %[[C]] : f32
// LATE-NEXT: %[[TAU1:.+]] = arith.constant 8.000000e+00 : f32
// LATE-NEXT: %[[GROWS1:.+]] = arith.cmpf ogt, %[[RISE_C1]], %[[TAU1]] : f32
// LATE-NEXT: %[[NEW_MAX1:.+]] = arith.select %[[GROWS1]], %[[TILE_MAX1]], %[[M1]] : f32
// LATE: %[[NEG_SHIFT1:.+]] = arith.negf %{{.+}} : f32
// LATE-NEXT: %[[ALPHA_ARG1:.+]] = llvm.intr.fma(%[[M1]], %[[C]], %[[NEG_SHIFT1]]) : (f32, f32, f32) -> f32
// LATE-NEXT: %[[EXP1:.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[ALPHA_ARG1]]) : (f32) -> f32
// LATE-NEXT: %[[ONE_F1:.+]] = arith.constant 1.000000e+00 : f32
// LATE-NEXT: %[[ALPHA1:.+]] = arith.select %[[GROWS1]], %[[EXP1]], %[[ONE_F1]] : f32
// LATE: scf.yield %[[NEW_MAX1]], {{.*}}, %[[ALPHA1]], %{{[^,]+}} : f32,
// LATE: %[[LOOP2:.+]]:54 = scf.for %{{.+}} iter_args({{.*}}, %[[PENDING2:arg[0-9]+]] = %{{[^,]+}}, %{{[^,]+}} = %{{[^,)]+}}) ->
// LATE: nvvm.wgmma.mma_async
// LATE: arith.cmpf une, %[[PENDING2]], %{{.+}} : f32
// LATE: %[[ANY2:.+]] = nvvm.vote.sync  any %{{.+}}, %{{.+}} -> i1
// LATE-NEXT: %[[RESCALED2:.+]]:32 = scf.if %[[ANY2]]
// LATE-NEXT: arith.mulf %{{.+}}, %[[PENDING2]] : f32
// LATE: nvvm.wgmma.fence.aligned
// LATE: llvm.inline_asm {{.*}}wgmma.mma_async.sync.aligned{{.*}}", {{.*}} %[[RESCALED2]]#0, %[[RESCALED2]]#1,
// LATE: %[[TILE_MAX2:.+]] = arith.maxnumf %[[M2:arg[0-9]+]], %{{.+}} : f32
// LATE-NEXT: %[[RISE2:.+]] = arith.subf %[[TILE_MAX2]], %[[M2]] : f32
// LATE-NEXT: %[[RISE_C2:.+]] = arith.mulf %[[RISE2]], %[[C]] : f32
// LATE-NEXT: %[[TAU2:.+]] = arith.constant 8.000000e+00 : f32
// LATE-NEXT: %[[GROWS2:.+]] = arith.cmpf ogt, %[[RISE_C2]], %[[TAU2]] : f32
// LATE-NEXT: %[[NEW_MAX2:.+]] = arith.select %[[GROWS2]], %[[TILE_MAX2]], %[[M2]] : f32
// LATE: %[[NEG_SHIFT2:.+]] = arith.negf %{{.+}} : f32
// LATE-NEXT: %[[ALPHA_ARG2:.+]] = llvm.intr.fma(%[[M2]], %[[C]], %[[NEG_SHIFT2]]) : (f32, f32, f32) -> f32
// LATE-NEXT: %[[EXP2:.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[ALPHA_ARG2]]) : (f32) -> f32
// LATE-NEXT: %[[ONE_F2:.+]] = arith.constant 1.000000e+00 : f32
// LATE-NEXT: %[[ALPHA2:.+]] = arith.select %[[GROWS2]], %[[EXP2]], %[[ONE_F2]] : f32
// LATE: scf.yield %[[NEW_MAX2]], {{.*}}, %[[ALPHA2]], %{{[^,]+}} : f32,
// LATE: %[[DRAIN_ANY:.+]] = nvvm.vote.sync  any %{{.+}}, %{{.+}} -> i1
// LATE-NEXT: scf.if %[[DRAIN_ANY]]
// LATE-NEXT: arith.mulf %{{.+}}, %[[LOOP2]]#52 : f32
func.func @causal(%q: tensor<1x4x300x64xbf16>, %k: tensor<1x4x100x64xbf16>, %v: tensor<1x4x100x64xbf16>) -> tensor<1x4x300x64xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 64, stages = 2, warps = 12>}
      : tensor<1x4x300x64xbf16>, tensor<1x4x100x64xbf16>, tensor<1x4x100x64xbf16> -> tensor<1x4x300x64xbf16>
  return %o : tensor<1x4x300x64xbf16>
}
