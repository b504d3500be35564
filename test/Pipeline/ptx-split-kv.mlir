// RUN: not flash-opt %s --flash-to-ptx=arch=sm_90a 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: flash-opt %s --flash-to-ptx="arch=sm_90a split-kv=false" | FileCheck %s --check-prefix=FORWARD

// --flash-to-ptx schedules few-row attention in the split-KV form. The GPU
// decode kernels (decode-gpu) take split_kv descriptors, but from the loop
// form python/flash_mlir/compiler writes (the function's arguments straight
// into the split loop); flash-tile's form packs Q and unpacks O around the
// loops (expand/collapse_shape), which the lowering refuses: a located "not
// supported yet". With split-kv=false the forward kernel (one block per
// q-head) is built as before.
// SPLIT: ptx-split-kv.mlir:[[@LINE+4]]:8: error: not supported yet: host code around the attention in a function lowered to a GPU kernel
// FORWARD: gpu.binary @decode_module
// FORWARD-SAME: wgmma.mma_async
func.func @decode(%q: tensor<4x32x1x128xbf16>, %k: tensor<4x8x8192x128xbf16>, %v: tensor<4x8x8192x128xbf16>) -> tensor<4x32x1x128xbf16> {
  %o = flash.attention %q, %k, %v : tensor<4x32x1x128xbf16>, tensor<4x8x8192x128xbf16>, tensor<4x8x8192x128xbf16> -> tensor<4x32x1x128xbf16>
  return %o : tensor<4x32x1x128xbf16>
}
