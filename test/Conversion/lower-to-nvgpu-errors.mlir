// What the sm_80 lowering cannot do yet is a located "not supported yet"
// diagnostic and a non-zero exit, never a crash or a wrong kernel.
// RUN: not flash-opt %s --split-input-file --flash-tile --flash-lower-to-nvgpu=arch=sm_80 2>&1 | FileCheck %s --implicit-check-not="see current operation"
// RUN: not flash-opt %s --flash-lower-to-nvgpu=arch=sm_75 2>&1 | FileCheck %s --check-prefix=UNKNOWN --implicit-check-not="see current operation"
// RUN: not flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_80 2>&1 | FileCheck %s --check-prefix=UNTILED

// UNKNOWN: error: flash-lower-to-nvgpu: unknown arch 'sm_75'; expected one of sm_80, sm_90a, sm_100a

// CHECK: lower-to-nvgpu-errors.mlir:[[@LINE+3]]:8: error: not supported yet: element type f32 (GPU kernels take f16 or bf16; f32 runs on the CPU) on sm_80
// UNTILED: lower-to-nvgpu-errors.mlir:[[@LINE+2]]:8: error: 'flash.attention' op must be tiled (flash-tile) before flash-lower-to-nvgpu
func.func @f32(%q: tensor<1x1x64x64xf32>, %k: tensor<1x1x64x64xf32>, %v: tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>} : tensor<1x1x64x64xf32>, tensor<1x1x64x64xf32>, tensor<1x1x64x64xf32> -> tensor<1x1x64x64xf32>
  return %o : tensor<1x1x64x64xf32>
}

// -----

// CHECK: lower-to-nvgpu-errors.mlir:[[@LINE+2]]:8: error: not supported yet: head dimension 32 (supported: 64, 128, 256) on sm_80
func.func @d32(%q: tensor<1x1x64x32xbf16>, %k: tensor<1x1x64x32xbf16>, %v: tensor<1x1x64x32xbf16>) -> tensor<1x1x64x32xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>} : tensor<1x1x64x32xbf16>, tensor<1x1x64x32xbf16>, tensor<1x1x64x32xbf16> -> tensor<1x1x64x32xbf16>
  return %o : tensor<1x1x64x32xbf16>
}

// -----

// CHECK: lower-to-nvgpu-errors.mlir:[[@LINE+2]]:8: error: not supported yet: Dv = 128 != D = 64 on sm_80
func.func @dv(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x128xbf16>) -> tensor<1x1x64x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>} : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x128xbf16> -> tensor<1x1x64x128xbf16>
  return %o : tensor<1x1x64x128xbf16>
}

// -----

// CHECK: lower-to-nvgpu-errors.mlir:[[@LINE+2]]:8: error: not supported yet: 1 K/V stages (the sm_80 kernel double-buffers) on sm_80
func.func @one_stage(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 1, warps = 4>} : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}

// -----

// CHECK: lower-to-nvgpu-errors.mlir:[[@LINE+2]]:8: error: not supported yet: block_q = 48 that is not a multiple of 16 rows per warp (4 warps) on sm_80
func.func @rows_per_warp(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 48, block_kv = 64, stages = 2, warps = 4>} : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}

// -----

// CHECK: lower-to-nvgpu-errors.mlir:[[@LINE+4]]:8: error: not supported yet: host code around the attention in a function lowered to a GPU kernel
func.func @host_code(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>} : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>
  %n = tensor.empty() : tensor<1x1x64x64xbf16>
  %c = linalg.copy ins(%o : tensor<1x1x64x64xbf16>) outs(%n : tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16>
  return %c : tensor<1x1x64x64xbf16>
}
