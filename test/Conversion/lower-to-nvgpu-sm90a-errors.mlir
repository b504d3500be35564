// What the sm_90a lowering cannot do yet is a located "not supported yet",
// without a dump of the tiled IR around it.
// RUN: not flash-opt %s --split-input-file --flash-tile --flash-lower-to-nvgpu=arch=sm_90a 2>&1 | FileCheck %s --implicit-check-not="see current operation"

// CHECK: lower-to-nvgpu-sm90a-errors.mlir:[[@LINE+2]]:8: error: not supported yet: block_q = 256 (one to three consumer warpgroups of 64 rows) on sm_90a
func.func @four_consumers(%q: tensor<1x1x512x128xbf16>, %k: tensor<1x1x512x128xbf16>, %v: tensor<1x1x512x128xbf16>) -> tensor<1x1x512x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 256, block_kv = 64, stages = 2, warps = 20>} : tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16> -> tensor<1x1x512x128xbf16>
  return %o : tensor<1x1x512x128xbf16>
}

// -----

// CHECK: lower-to-nvgpu-sm90a-errors.mlir:[[@LINE+2]]:8: error: not supported yet: 8 warps for 2 consumer warpgroups (expected 12) on sm_90a
func.func @warps(%q: tensor<1x1x512x128xbf16>, %k: tensor<1x1x512x128xbf16>, %v: tensor<1x1x512x128xbf16>) -> tensor<1x1x512x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 64, stages = 2, warps = 8>} : tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16> -> tensor<1x1x512x128xbf16>
  return %o : tensor<1x1x512x128xbf16>
}

// -----

// CHECK: lower-to-nvgpu-sm90a-errors.mlir:[[@LINE+2]]:8: error: not supported yet: block_kv = 40 (a multiple of 16 up to 256) on sm_90a
func.func @block_kv(%q: tensor<1x1x512x128xbf16>, %k: tensor<1x1x512x128xbf16>, %v: tensor<1x1x512x128xbf16>) -> tensor<1x1x512x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 40, stages = 2, warps = 12>} : tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16> -> tensor<1x1x512x128xbf16>
  return %o : tensor<1x1x512x128xbf16>
}

// -----

// CHECK: lower-to-nvgpu-sm90a-errors.mlir:[[@LINE+2]]:8: error: not supported yet: 1 K/V stage (the producer/consumer pipeline needs two) on sm_90a
func.func @one_stage(%q: tensor<1x1x512x128xbf16>, %k: tensor<1x1x512x128xbf16>, %v: tensor<1x1x512x128xbf16>) -> tensor<1x1x512x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 64, stages = 1, warps = 12>} : tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16> -> tensor<1x1x512x128xbf16>
  return %o : tensor<1x1x512x128xbf16>
}

// -----

// CHECK: lower-to-nvgpu-sm90a-errors.mlir:[[@LINE+2]]:8: error: not supported yet: 427096 bytes of shared memory (232448 per block) on sm_90a
func.func @too_much_smem(%q: tensor<1x1x512x256xbf16>, %k: tensor<1x1x512x256xbf16>, %v: tensor<1x1x512x256xbf16>) -> tensor<1x1x512x256xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 176, stages = 2, warps = 12>} : tensor<1x1x512x256xbf16>, tensor<1x1x512x256xbf16>, tensor<1x1x512x256xbf16> -> tensor<1x1x512x256xbf16>
  return %o : tensor<1x1x512x256xbf16>
}
