// RUN: flash-opt %s --split-input-file --flash-select-schedule=arch=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: flash-opt %s --split-input-file --flash-select-schedule=arch=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: not flash-opt %s --split-input-file --flash-select-schedule=arch=sm_100a 2>/dev/null | FileCheck %s --check-prefix=SM100
// RUN: not flash-opt %s --split-input-file --flash-select-schedule=arch=sm_100a 2>&1 >/dev/null | FileCheck %s --check-prefix=SM100ERR
// RUN: flash-opt %s --split-input-file --flash-select-schedule="arch=sm_90a block-kv=64" | FileCheck %s --check-prefix=OVERRIDE

// The backward's schedule (Schedule.cpp, chooseBackwardSchedule): a block
// keeps one K/V tile with f32 dK and dV accumulators (Bc·(D + Dv) words)
// while Q tiles stream past; S and dP (2·Br·Bc words) are live beside them,
// P and dS pass through shared memory. The fit checks reproduce what
// FlashAttention-2 (sm_80, 8 warps) chose by hand: 128×128 at D = 64;
// 64×128 at D = 128, where 128×128 overflows the registers and 128×64 ties
// the objective but re-reads Q, dO and the dQ workspace twice as often;
// 64×64 at D = 256, with one stage (two do not fit 163 KB). On sm_90a (two
// MMA warpgroups and a producer) the candidates are the kernel's tiles
// (SM90/BackwardKernel.cpp refuses any other): 128×128 where Sᵀ and dPᵀ of
// 64 × 128 fit the registers beside dK and dV (D = 64; measured faster than
// 64×128 on the H200, docs/benchmarks.md), 64×128 at every other D it fits
// (also for the deterministic plan at D = 64, whose 128×128 spills), and
// 64×64 (the warpgroups sharing the K/V rows, splitting the columns) only
// where no 64×128 fits: D = 256.

// SM80-LABEL: func.func @d64
// SM80: schedule = #flash.schedule<arch = "sm_80", block_q = 128, block_kv = 128, stages = 2, warps = 8>
// SM90-LABEL: func.func @d64
// SM90: schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>
// SM100-LABEL: func.func @d64
// SM100: schedule = #flash.schedule<arch = "sm_100a", block_q = 128, block_kv = 128, stages = 2, warps = 16>
// OVERRIDE-LABEL: func.func @d64
// The override fixes Bc; the model still picks Br (128 rows fit at D = 64).
// OVERRIDE: schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 64, stages = 2, warps = 12>
func.func @d64(%q: tensor<4x16x4096x64xbf16>, %k: tensor<4x16x4096x64xbf16>, %v: tensor<4x16x4096x64xbf16>,
               %o: tensor<4x16x4096x64xbf16>, %do: tensor<4x16x4096x64xbf16>, %lse: tensor<4x16x4096xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse
      : tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096xf32>
      -> tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>
  return
}

// The deterministic plan at D = 64 keeps 64-row Q tiles on sm_90a (its
// causal kernel spills at 128); sm_80 picks as for the other plan.
// SM80-LABEL: func.func @d64_deterministic
// SM80: schedule = #flash.schedule<arch = "sm_80", block_q = 128, block_kv = 128, stages = 2, warps = 8>
// SM90-LABEL: func.func @d64_deterministic
// SM90: schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>
func.func @d64_deterministic(%q: tensor<4x16x4096x64xbf16>, %k: tensor<4x16x4096x64xbf16>, %v: tensor<4x16x4096x64xbf16>,
                             %o: tensor<4x16x4096x64xbf16>, %do: tensor<4x16x4096x64xbf16>, %lse: tensor<4x16x4096xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {causal, deterministic}
      : tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096xf32>
      -> tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>
  return
}

// SM80-LABEL: func.func @d128_causal
// SM80: schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 128, stages = 2, warps = 8>
// SM90-LABEL: func.func @d128_causal
// SM90: schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>
// sm_100a: 128×128 would fit tensor memory (D + Dv + 2·Br = 512 columns) but
// not shared memory.
// SM100-LABEL: func.func @d128_causal
// SM100: schedule = #flash.schedule<arch = "sm_100a", block_q = 64, block_kv = 128, stages = 2, warps = 12>
func.func @d128_causal(%q: tensor<2x16x8192x128xbf16>, %k: tensor<2x16x8192x128xbf16>, %v: tensor<2x16x8192x128xbf16>,
                       %o: tensor<2x16x8192x128xbf16>, %do: tensor<2x16x8192x128xbf16>, %lse: tensor<2x16x8192xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {causal}
      : tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>, tensor<2x16x8192xf32>
      -> tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>
  return
}

// -----

// SM80-LABEL: func.func @d256
// sm_80: 64-row Q tiles with two stages overflow an A100's shared memory;
// with one stage they fit and beat the kernel's 32×64 with two (two warps
// per 16 keys either way).
// SM80: schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 1, warps = 8>
// sm_90a: 64×128's dK and dV (two warpgroups of 64 K/V rows) do not fit the
// registers at D = 256; 64×64, two stages.
// SM90-LABEL: func.func @d256
// SM90: schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 64, stages = 2, warps = 12>
// sm_100a: dK and dV alone take the 512 columns of tensor memory.
// SM100ERR: select-schedule-backward.mlir:[[@LINE+3]]:19: error: 'flash.attention_backward' op not supported yet: no backward schedule for sm_100a fits D=256, Dv=256 in shared memory and registers
func.func @d256(%q: tensor<1x8x2048x256xf16>, %k: tensor<1x8x2048x256xf16>, %v: tensor<1x8x2048x256xf16>,
                %o: tensor<1x8x2048x256xf16>, %do: tensor<1x8x2048x256xf16>, %lse: tensor<1x8x2048xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse
      : tensor<1x8x2048x256xf16>, tensor<1x8x2048x256xf16>, tensor<1x8x2048x256xf16>, tensor<1x8x2048x256xf16>, tensor<1x8x2048x256xf16>, tensor<1x8x2048xf32>
      -> tensor<1x8x2048x256xf16>, tensor<1x8x2048x256xf16>, tensor<1x8x2048x256xf16>
  return
}
