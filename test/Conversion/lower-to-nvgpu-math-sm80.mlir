// RUN: flash-opt %s --split-input-file --flash-tile --flash-lower-to-nvgpu=arch=sm_80 | FileCheck %s

// The constants and data flow of the sm_80 kernel's math, not only its op
// names: every value below is tied by a named capture to the kernel argument
// or op it must come from, so that an op of the same name computing
// something else does not match. (The numbers are checked on the CPU by
// python/tests/test_kernel_math.py; this pins what the kernel is built of.)

// Causal, Nq = 300 > Nk = 100 (run-time sizes).
// CHECK-LABEL: gpu.func @causal(
// CHECK-SAME: %[[NQ:[^:]+]]: i32, %[[NK:[^:]+]]: i32, %[[SCALE:[^:]+]]: f32) kernel
// The scale folded into exp2 once: c = scale·log2(e).
// CHECK: %[[LOG2E:.+]] = arith.constant 1.44269502 : f32
// CHECK-NEXT: %[[C:.+]] = arith.mulf %[[SCALE]], %[[LOG2E]] : f32
// The K/V range (buildKVRange): the diagonal is offset by Nk − Nq, and
// kvEnd = clamp(min(qStart + Br, Nq) + Nk − Nq, 0, Nk).
// CHECK: %[[OFF:.+]] = arith.subi %[[NK]], %[[NQ]] : i32
// CHECK-NEXT: %[[BR:.+]] = arith.constant 64 : i32
// CHECK-NEXT: %[[QEND:.+]] = arith.addi %[[QSTART:.+]], %[[BR]] : i32
// CHECK-NEXT: %[[ROWS_END:.+]] = arith.minsi %[[QEND]], %[[NQ]] : i32
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[DIAG_END:.+]] = arith.addi %[[ROWS_END]], %[[OFF]] : i32
// CHECK-NEXT: %[[NONNEG:.+]] = arith.maxsi %[[DIAG_END]], %[[ZERO]] : i32
// CHECK-NEXT: %[[KV_END:.+]] = arith.minsi %[[NONNEG]], %[[NK]] : i32
// Unmasked tiles: (qStart + Nk − Nq + 1)⁺ / Bc.
// CHECK: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-NEXT: %[[FIRST_DIAG:.+]] = arith.addi %[[QSTART]], %[[OFF]] : i32
// CHECK-NEXT: %[[FIRST_KEYS:.+]] = arith.addi %[[FIRST_DIAG]], %[[ONE]] : i32
//
// The unmasked K/V loop: m' = max(m, rowmax S); shift = m'·c (0 for a row
// without keys); α = exp2(m·c − shift) and P = exp2(S·c − shift) are fmas
// with c; the accumulator is multiplied by α before P·V accumulates into it.
// CHECK: scf.for
// CHECK: %[[NEW_MAX:.+]] = arith.maxnumf %[[M:arg[0-9]+]], %{{.+}} : f32
// CHECK-NEXT: %[[EMPTY:.+]] = arith.cmpf oeq, %[[NEW_MAX]], %{{.+}} : f32
// CHECK-NEXT: %[[SHIFT_C:.+]] = arith.mulf %[[NEW_MAX]], %[[C]] : f32
// CHECK-NEXT: %[[SHIFT:.+]] = arith.select %[[EMPTY]], %{{.+}}, %[[SHIFT_C]] : f32
// CHECK-NEXT: %[[NEG_SHIFT:.+]] = arith.negf %[[SHIFT]] : f32
// CHECK-NEXT: %[[ALPHA_ARG:.+]] = llvm.intr.fma(%[[M]], %[[C]], %[[NEG_SHIFT]]) : (f32, f32, f32) -> f32
// CHECK-NEXT: %[[ALPHA:.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[ALPHA_ARG]]) : (f32) -> f32
// CHECK-NEXT: %[[P_ARG:.+]] = llvm.intr.fma(%{{.+}}, %[[C]], %[[NEG_SHIFT]]) : (f32, f32, f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[P_ARG]]) : (f32) -> f32
// CHECK: %[[SCALED:.+]] = arith.mulf %arg{{[0-9]+}}, %[[ALPHA]] : f32
// CHECK: nvvm.mma.sync A[{{.*}}]  B[{{.*}}]  C[%[[SCALED]], {{.*}}]
// CHECK: scf.yield
//
// The masked loop: key kvStart + col is visible iff col ≤ min(Nk − 1 −
// kvStart − 2t, row + (Nk − Nq) + g − kvStart − 2t); the rest is -inf.
// CHECK: scf.for
// CHECK: %[[MASK_OFF:.+]] = arith.subi %[[NK]], %[[NQ]] : i32
// CHECK-NEXT: %[[ROW_DIAG:.+]] = arith.addi %{{.+}}, %[[MASK_OFF]] : i32
// CHECK-NEXT: %[[LANE_DIAG:.+]] = arith.addi %[[ROW_DIAG]], %{{.+}} : i32
// CHECK-NEXT: %[[REL_DIAG:.+]] = arith.subi %[[LANE_DIAG]], %{{.+}} : i32
// CHECK: %[[LIMIT:.+]] = arith.minsi %{{.+}}, %{{.+}} : i32
// CHECK-NEXT: %[[COL0:.+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[VISIBLE:.+]] = arith.cmpi sle, %[[COL0]], %[[LIMIT]] : i32
// CHECK-NEXT: arith.select %[[VISIBLE]], %{{.+}}, %[[NEG_INF:.+]] : f32
// ... and it rescales too.
// CHECK: %[[NEW_MAX2:.+]] = arith.maxnumf %[[M2:arg[0-9]+]], %{{.+}} : f32
// CHECK: %[[NEG_SHIFT2:.+]] = arith.negf %{{.+}} : f32
// CHECK-NEXT: %[[ALPHA_ARG2:.+]] = llvm.intr.fma(%[[M2]], %[[C]], %[[NEG_SHIFT2]]) : (f32, f32, f32) -> f32
// CHECK-NEXT: %[[ALPHA2:.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[ALPHA_ARG2]]) : (f32) -> f32
// CHECK: %[[SCALED2:.+]] = arith.mulf %arg{{[0-9]+}}, %[[ALPHA2]] : f32
// CHECK: nvvm.mma.sync A[{{.*}}]  B[{{.*}}]  C[%[[SCALED2]], {{.*}}]
// CHECK: scf.yield
func.func @causal(%q: tensor<1x4x300x64xbf16>, %k: tensor<1x4x100x64xbf16>, %v: tensor<1x4x100x64xbf16>) -> tensor<1x4x300x64xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 32, stages = 2, warps = 4>}
      : tensor<1x4x300x64xbf16>, tensor<1x4x100x64xbf16>, tensor<1x4x100x64xbf16> -> tensor<1x4x300x64xbf16>
  return %o : tensor<1x4x300x64xbf16>
}

// -----

// The epilogue: l = quad sum; O = acc · (1/l), 0 for l = 0; LSE = m·scale +
// log2(l)·ln 2 (natural log), -inf for l = 0.
// CHECK-LABEL: gpu.func @lse(
// CHECK-SAME: %[[SCALE:[^:]+]]: f32) kernel
// CHECK: scf.for
// CHECK: scf.yield
// CHECK: scf.for
// CHECK: scf.yield
// CHECK: %[[FZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[FONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[SHUFFLED:[^,]+]], %{{[^ ]+}} = gpu.shuffle  xor %[[L_HALF:[^,]+]], %c2_i32{{[_0-9]*}}, %{{.+}} : f32
// CHECK-NEXT: %[[L:.+]] = arith.addf %[[L_HALF]], %[[SHUFFLED]] : f32
// CHECK-NEXT: %[[EMPTY:.+]] = arith.cmpf oeq, %[[L]], %[[FZERO]] : f32
// CHECK-NEXT: %[[RECIP:.+]] = arith.divf %[[FONE]], %[[L]] : f32
// CHECK-NEXT: %[[INV:.+]] = arith.select %[[EMPTY]], %[[FZERO]], %[[RECIP]] : f32
// CHECK: arith.mulf %{{.+}}, %[[INV]] : f32
// CHECK: %[[LN2:.+]] = arith.constant 0.693147182 : f32
// CHECK-NEXT: %[[LG:.+]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"(%[[L]]) : (f32) -> f32
// CHECK-NEXT: %[[LN:.+]] = arith.mulf %[[LG]], %[[LN2]] : f32
// CHECK-NEXT: %[[LSE:.+]] = llvm.intr.fma(%{{.+}}, %[[SCALE]], %[[LN]]) : (f32, f32, f32) -> f32
// CHECK-NEXT: arith.select %[[EMPTY]], %[[NEG_INF]], %[[LSE]] : f32
func.func @lse(%q: tensor<1x2x100x64xf16>, %k: tensor<1x2x100x64xf16>, %v: tensor<1x2x100x64xf16>) -> (tensor<1x2x100x64xf16>, tensor<1x2x100xf32>) {
  %o, %l = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 32, stages = 2, warps = 4>}
      : tensor<1x2x100x64xf16>, tensor<1x2x100x64xf16>, tensor<1x2x100x64xf16> -> tensor<1x2x100x64xf16>, tensor<1x2x100xf32>
  return %o, %l : tensor<1x2x100x64xf16>, tensor<1x2x100xf32>
}
