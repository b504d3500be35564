// What the sm_100a lowering cannot do yet is a located "not supported yet",
// without a dump of the tiled IR around it: its kernel takes one 128-row Q
// tile per block in six warps or two in twelve (where 2·(D + Bc) tensor-
// memory columns fit), K/V tiles of 64 or 128 rows, two or more stages, and
// has no form options.
// RUN: not flash-opt %s --split-input-file --flash-tile --flash-lower-to-nvgpu=arch=sm_100a 2>&1 | FileCheck %s --implicit-check-not="see current operation"
// RUN: not flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form=persistent=yes 2>&1 | FileCheck %s --check-prefix=FORM --implicit-check-not="see current operation"

// CHECK: lower-to-nvgpu-sm100a-errors.mlir:[[@LINE+3]]:8: error: not supported yet: 10 warps with two Q tiles (the kernel has sixteen: two softmax warpgroups, a correction warpgroup and one of the TMA and MMA warps) on sm_100a
// FORM: lower-to-nvgpu-sm100a-errors.mlir:[[@LINE+2]]:8: error: not supported yet: form options on sm_100a (its forward kernel has no form options: one or two Q tiles per block as the schedule says, rescale=lazy)
func.func @two_q_tiles(%q: tensor<1x1x512x128xbf16>, %k: tensor<1x1x512x128xbf16>, %v: tensor<1x1x512x128xbf16>) -> tensor<1x1x512x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_100a", block_q = 256, block_kv = 128, stages = 2, warps = 10>} : tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16> -> tensor<1x1x512x128xbf16>
  return %o : tensor<1x1x512x128xbf16>
}

// -----

// CHECK: lower-to-nvgpu-sm100a-errors.mlir:[[@LINE+2]]:8: error: not supported yet: block_q = 384 (the kernel computes one or two 128-row Q tiles per block) on sm_100a
func.func @three_q_tiles(%q: tensor<1x1x512x64xbf16>, %k: tensor<1x1x512x64xbf16>, %v: tensor<1x1x512x64xbf16>) -> tensor<1x1x512x64xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_100a", block_q = 384, block_kv = 64, stages = 2, warps = 16>} : tensor<1x1x512x64xbf16>, tensor<1x1x512x64xbf16>, tensor<1x1x512x64xbf16> -> tensor<1x1x512x64xbf16>
  return %o : tensor<1x1x512x64xbf16>
}

// -----

// Two tiles at D = 256: O and S of both take 2·(256 + 64) = 640 columns.
// CHECK: lower-to-nvgpu-sm100a-errors.mlir:[[@LINE+2]]:8: error: not supported yet: two Q tiles at D = 256, block_kv = 64 (2·(D + Bc) = 640 tensor-memory columns, 512 per SM) on sm_100a
func.func @two_q_tiles_d256(%q: tensor<1x1x512x256xbf16>, %k: tensor<1x1x512x256xbf16>, %v: tensor<1x1x512x256xbf16>) -> tensor<1x1x512x256xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_100a", block_q = 256, block_kv = 64, stages = 2, warps = 16>} : tensor<1x1x512x256xbf16>, tensor<1x1x512x256xbf16>, tensor<1x1x512x256xbf16> -> tensor<1x1x512x256xbf16>
  return %o : tensor<1x1x512x256xbf16>
}

// -----

// CHECK: lower-to-nvgpu-sm100a-errors.mlir:[[@LINE+2]]:8: error: not supported yet: 12 warps with one Q tile (the kernel has six: a softmax warpgroup, a TMA warp and an MMA warp) on sm_100a
func.func @warps(%q: tensor<1x1x512x128xbf16>, %k: tensor<1x1x512x128xbf16>, %v: tensor<1x1x512x128xbf16>) -> tensor<1x1x512x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_100a", block_q = 128, block_kv = 128, stages = 2, warps = 12>} : tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16> -> tensor<1x1x512x128xbf16>
  return %o : tensor<1x1x512x128xbf16>
}

// -----

// CHECK: lower-to-nvgpu-sm100a-errors.mlir:[[@LINE+2]]:8: error: not supported yet: block_kv = 96 (64 or 128) on sm_100a
func.func @block_kv(%q: tensor<1x1x512x128xbf16>, %k: tensor<1x1x512x128xbf16>, %v: tensor<1x1x512x128xbf16>) -> tensor<1x1x512x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_100a", block_q = 128, block_kv = 96, stages = 2, warps = 6>} : tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16> -> tensor<1x1x512x128xbf16>
  return %o : tensor<1x1x512x128xbf16>
}

// -----

// CHECK: lower-to-nvgpu-sm100a-errors.mlir:[[@LINE+2]]:8: error: not supported yet: 1 K/V stage (two or more) on sm_100a
func.func @one_stage(%q: tensor<1x1x512x128xbf16>, %k: tensor<1x1x512x128xbf16>, %v: tensor<1x1x512x128xbf16>) -> tensor<1x1x512x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_100a", block_q = 128, block_kv = 128, stages = 1, warps = 6>} : tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16> -> tensor<1x1x512x128xbf16>
  return %o : tensor<1x1x512x128xbf16>
}

// -----

// D = 256 with 128-row K/V tiles: Q (64 KiB) and two stages of K and V
// (256 KiB) do not fit a block's 227 KiB.
// CHECK: lower-to-nvgpu-sm100a-errors.mlir:[[@LINE+2]]:8: error: not supported yet: {{[0-9]+}} bytes of shared memory (232448 per block) on sm_100a
func.func @too_much_smem(%q: tensor<1x1x512x256xbf16>, %k: tensor<1x1x512x256xbf16>, %v: tensor<1x1x512x256xbf16>) -> tensor<1x1x512x256xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_100a", block_q = 128, block_kv = 128, stages = 2, warps = 6>} : tensor<1x1x512x256xbf16>, tensor<1x1x512x256xbf16>, tensor<1x1x512x256xbf16> -> tensor<1x1x512x256xbf16>
  return %o : tensor<1x1x512x256xbf16>
}
