// The sm_90a-only options of flash-lower-to-nvgpu are refused on sm_80 with
// a located diagnostic, not ignored.
// RUN: not flash-opt %s --flash-tile --flash-select-kernel-form="persistent=yes" --flash-lower-to-nvgpu=arch=sm_80 2>&1 | FileCheck %s --check-prefix=PERSISTENT
// RUN: not flash-opt %s --flash-tile --flash-select-kernel-form="ping-pong=yes" --flash-lower-to-nvgpu=arch=sm_80 2>&1 | FileCheck %s --check-prefix=PINGPONG
// RUN: not flash-opt %s --flash-tile --flash-select-kernel-form="store-wait=deferred" --flash-lower-to-nvgpu=arch=sm_80 2>&1 | FileCheck %s --check-prefix=STOREWAIT
// RUN: flash-opt %s --flash-tile --flash-select-kernel-form="persistent=no ping-pong=no store-wait=immediate" --flash-lower-to-nvgpu=arch=sm_80 | FileCheck %s
// RUN: flash-opt %s --flash-tile --flash-select-kernel-form | FileCheck %s --check-prefix=NOFORM

// sm_80 kernels have one form: flash-select-kernel-form leaves the descriptor
// without one.
// NOFORM: flash.kernel = #flash.kernel<{{.*}}schedule = <arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>>}

// PERSISTENT: lower-to-nvgpu-sm80-options.mlir:[[@LINE+6]]:8: error: not supported yet: a persistent grid on sm_80
// PINGPONG: lower-to-nvgpu-sm80-options.mlir:[[@LINE+5]]:8: error: not supported yet: ping-pong on sm_80
// STOREWAIT: lower-to-nvgpu-sm80-options.mlir:[[@LINE+4]]:8: error: not supported yet: store-wait=deferred on sm_80 (its output leaves by plain stores)
// CHECK: kernel = "plain"
// CHECK: gpu.func @plain
func.func @plain(%q: tensor<1x2x100x64xbf16>, %k: tensor<1x2x100x64xbf16>, %v: tensor<1x2x100x64xbf16>) -> tensor<1x2x100x64xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>}
      : tensor<1x2x100x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x64xbf16> -> tensor<1x2x100x64xbf16>
  return %o : tensor<1x2x100x64xbf16>
}
