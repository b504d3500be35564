// flash-lower-to-nvgpu lowers flash-tile's loops in func.func ops of the
// top-level module; an attention anywhere else, and an L1 op outside a tiled
// attention, is refused, located and without the IR around it (issue 21: a
// gpu.func left the L1 ops behind with exit 0, a nested module's kernel was
// hoisted to the top where two of them collided by name).
// RUN: not flash-opt %s --split-input-file --flash-select-schedule=arch=sm_80 --flash-tile --flash-lower-to-nvgpu=arch=sm_80 2>&1 | FileCheck %s
// RUN: not flash-opt %s --split-input-file --flash-to-ptx=arch=sm_80 2>&1 | FileCheck %s
// RUN: not flash-opt %s --split-input-file --flash-to-ptx=arch=sm_90a 2>&1 | FileCheck %s
// CHECK-NOT: see current operation
// CHECK-NOT: NULL TYPE

// CHECK: lower-to-nvgpu-placement.mlir:[[@LINE+3]]:10: error: not supported yet: a tiled attention in a 'gpu.func' (flash-lower-to-nvgpu lowers func.func ops of the top-level module)
gpu.module @kernels {
  gpu.func @in_gpu_func(%q: tensor<1x1x128x64xf16>, %k: tensor<1x1x128x64xf16>, %v: tensor<1x1x128x64xf16>) -> tensor<1x1x128x64xf16> {
    %o = flash.attention %q, %k, %v : tensor<1x1x128x64xf16>, tensor<1x1x128x64xf16>, tensor<1x1x128x64xf16> -> tensor<1x1x128x64xf16>
    gpu.return %o : tensor<1x1x128x64xf16>
  }
}

// -----

// CHECK: lower-to-nvgpu-placement.mlir:[[@LINE+3]]:10: error: not supported yet: a tiled attention in a func.func inside a 'gpu.module' (flash-lower-to-nvgpu lowers func.func ops of the top-level module)
gpu.module @kernels {
  func.func @in_gpu_module(%q: tensor<1x1x128x64xf16>, %k: tensor<1x1x128x64xf16>, %v: tensor<1x1x128x64xf16>) -> tensor<1x1x128x64xf16> {
    %o = flash.attention %q, %k, %v : tensor<1x1x128x64xf16>, tensor<1x1x128x64xf16>, tensor<1x1x128x64xf16> -> tensor<1x1x128x64xf16>
    return %o : tensor<1x1x128x64xf16>
  }
}

// -----

// Two functions named @f, one at the top and one in a nested module.
// CHECK: lower-to-nvgpu-placement.mlir:[[@LINE+7]]:10: error: not supported yet: a tiled attention in a func.func inside a 'builtin.module' (flash-lower-to-nvgpu lowers func.func ops of the top-level module)
func.func @f(%q: tensor<1x1x128x64xf16>, %k: tensor<1x1x128x64xf16>, %v: tensor<1x1x128x64xf16>) -> tensor<1x1x128x64xf16> {
  %o = flash.attention %q, %k, %v : tensor<1x1x128x64xf16>, tensor<1x1x128x64xf16>, tensor<1x1x128x64xf16> -> tensor<1x1x128x64xf16>
  return %o : tensor<1x1x128x64xf16>
}
module @inner {
  func.func @f(%q: tensor<1x1x128x64xf16>, %k: tensor<1x1x128x64xf16>, %v: tensor<1x1x128x64xf16>) -> tensor<1x1x128x64xf16> {
    %o = flash.attention %q, %k, %v : tensor<1x1x128x64xf16>, tensor<1x1x128x64xf16>, tensor<1x1x128x64xf16> -> tensor<1x1x128x64xf16>
    return %o : tensor<1x1x128x64xf16>
  }
}

// -----

// An L1 op that no tiled attention holds.
// CHECK: lower-to-nvgpu-placement.mlir:[[@LINE+2]]:8: error: not supported yet: 'flash.mask' outside a tiled attention (flash-lower-to-nvgpu lowers the loops that flash-tile makes)
func.func @stray(%s: tensor<16x16xf32>, %i: index) -> tensor<16x16xf32> {
  %m = flash.mask %s[%i, %i] {kv_len = 16 : i64} : tensor<16x16xf32>
  return %m : tensor<16x16xf32>
}
