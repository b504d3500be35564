// RUN: flash-opt %s --split-input-file --flash-select-schedule=arch=sm_80 | FileCheck %s --check-prefix=A100
// RUN: flash-opt %s --split-input-file --flash-select-schedule="arch=sm_80 shared-memory-per-block=166912" | FileCheck %s --check-prefix=A100
// RUN: flash-opt %s --split-input-file --flash-select-schedule="arch=sm_80 shared-memory-per-block=232448" | FileCheck %s --check-prefix=H100
// RUN: not flash-opt %s --split-input-file --flash-select-schedule="arch=sm_80 shared-memory-per-block=101376" 2>&1 | FileCheck %s --check-prefix=SM86
// RUN: not flash-opt %s --flash-select-schedule="arch=sm_80 shared-memory-per-block=300000" 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not flash-opt %s --flash-select-schedule="arch=sm_80 shared-memory-per-block=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not flash-opt %s --flash-lower-to-nvgpu="arch=sm_80 shared-memory-per-block=300000" 2>&1 | FileCheck %s --check-prefix=LOWER
// RUN: not flash-opt %s --flash-select-schedule=arch=sm_80 --flash-tile --flash-select-kernel-form="shared-memory-per-block=300000" 2>&1 | FileCheck %s --check-prefix=FORM

// The model's backward schedule on sm_80 per shared-memory budget (the
// option `shared-memory-per-block`: the bytes one block may opt in to on the
// devices a plan is for; 0, the default, is the target model's, an A100's
// 163 KB). With the H100/H200's 227 KB (232448 bytes; sm_80 kernels run
// there through their sm_90 cubin) the D = 256 backward takes its 64-row Q
// tiles with two stages of Q and dO (FlashAttention-2's H100 choice);
// D = 64 and 128 keep their schedules (the registers, not shared memory,
// bound them). On a 99 KB device (sm_86) no D = 256 tile fits. The runtime
// chooses between the plans by the device's opt-in shared memory
// (docs/launch-plan.md, "Selection").

// BUDGET: error: flash-select-schedule: shared-memory-per-block must be 0 (the target model's) or at most 232448 bytes, got 300000
// NEGATIVE: error: flash-select-schedule: shared-memory-per-block must be 0 (the target model's) or at most 232448 bytes, got -1
// LOWER: error: flash-lower-to-nvgpu: shared-memory-per-block must be 0 (the target model's) or at most 232448 bytes, got 300000
// FORM: error: flash-select-kernel-form: shared-memory-per-block must be 0 (the target model's) or at most 232448 bytes, got 300000

// A100-LABEL: func.func @d64
// A100: schedule = #flash.schedule<arch = "sm_80", block_q = 128, block_kv = 128, stages = 2, warps = 8>
// H100-LABEL: func.func @d64
// H100: schedule = #flash.schedule<arch = "sm_80", block_q = 128, block_kv = 128, stages = 2, warps = 8>
func.func @d64(%q: tensor<4x16x4096x64xbf16>, %k: tensor<4x16x4096x64xbf16>, %v: tensor<4x16x4096x64xbf16>,
               %o: tensor<4x16x4096x64xbf16>, %do: tensor<4x16x4096x64xbf16>, %lse: tensor<4x16x4096xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse
      : tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096xf32>
      -> tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>
  return
}

// -----

// A100-LABEL: func.func @d128_causal
// A100: schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 128, stages = 2, warps = 8>
// H100-LABEL: func.func @d128_causal
// H100: schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 128, stages = 2, warps = 8>
func.func @d128_causal(%q: tensor<2x16x8192x128xbf16>, %k: tensor<2x16x8192x128xbf16>, %v: tensor<2x16x8192x128xbf16>,
                       %o: tensor<2x16x8192x128xbf16>, %do: tensor<2x16x8192x128xbf16>, %lse: tensor<2x16x8192xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {causal}
      : tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>, tensor<2x16x8192xf32>
      -> tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>
  return
}

// -----

// A100-LABEL: func.func @d256
// A100: schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 1, warps = 8>
// H100-LABEL: func.func @d256
// H100: schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 8>
// SM86: select-schedule-shared-memory.mlir:[[@LINE+3]]:19: error: 'flash.attention_backward' op not supported yet: no backward schedule for sm_80 fits D=256, Dv=256 in shared memory and registers
func.func @d256(%q: tensor<1x8x2048x256xbf16>, %k: tensor<1x8x2048x256xbf16>, %v: tensor<1x8x2048x256xbf16>,
                %o: tensor<1x8x2048x256xbf16>, %do: tensor<1x8x2048x256xbf16>, %lse: tensor<1x8x2048xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse
      : tensor<1x8x2048x256xbf16>, tensor<1x8x2048x256xbf16>, tensor<1x8x2048x256xbf16>, tensor<1x8x2048x256xbf16>, tensor<1x8x2048x256xbf16>, tensor<1x8x2048xf32>
      -> tensor<1x8x2048x256xbf16>, tensor<1x8x2048x256xbf16>, tensor<1x8x2048x256xbf16>
  return
}
