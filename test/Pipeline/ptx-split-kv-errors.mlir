// What --flash-to-ptx cannot build from a few-row flash.attention or a
// flash.paged_attention is a located "not supported yet" at the op, never a
// crash or a wrong kernel: the decode kernels' checks (KernelForm.cpp's
// shared ones, SM80/DecodeKernel.cpp's tiles) on the op's own descriptor.
// RUN: flash-opt %s --split-input-file --flash-to-ptx=arch=sm_90a -verify-diagnostics
// A schedule given by hand must be one the decode kernels take (64 keys on
// 4 warps, 16·m rows, 2 to 8 stages); sm_100a has a forward kernel only.
// RUN: not flash-opt %s --split-input-file --flash-to-ptx="arch=sm_80 block-kv=128" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCKKV
// RUN: not flash-opt %s --split-input-file --flash-to-ptx="arch=sm_80 block-q=48" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCKQ
// RUN: not flash-opt %s --split-input-file --flash-to-ptx="arch=sm_90a stages=9" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not flash-opt %s --split-input-file --flash-to-ptx="arch=sm_80 max-splits=2000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLITS
// RUN: not flash-opt %s --split-input-file --flash-to-ptx="arch=sm_100a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM100
// BLOCKKV: ptx-split-kv-errors.mlir:{{[0-9]+}}:8: error: not supported yet: a split-KV schedule with block_kv = 128, warps = 4 (the decode kernels take 64 keys a tile on 4 warps) on sm_80
// BLOCKQ: ptx-split-kv-errors.mlir:{{[0-9]+}}:8: error: not supported yet: a split-KV row tile of block_q = 48 (the decode kernels take 16·m rows, m = 1 to 2 at D = 128) on sm_80
// STAGES: ptx-split-kv-errors.mlir:{{[0-9]+}}:8: error: not supported yet: a split-KV schedule of 9 stages (the decode kernels take 2 to 8) on sm_90a
// SPLITS: ptx-split-kv-errors.mlir:{{[0-9]+}}:8: error: not supported yet: max_splits = 2000 (1 to 1024) on sm_80
// SM100: ptx-split-kv-errors.mlir:{{[0-9]+}}:8: error: not supported yet: kernel kind split_kv (sm_100a has a forward kernel only) on sm_100a

// f32 runs on the CPU only.
func.func @f32(%q: tensor<1x32x1x128xf32>, %k: tensor<64x16x8x128xf32>, %v: tensor<64x16x8x128xf32>, %bt: tensor<1x64xi32>, %sl: tensor<1xi32>) -> tensor<1x32x1x128xf32> {
  // expected-error @+1 {{not supported yet: element type f32 (GPU kernels take f16 or bf16; f32 runs on the CPU) on sm_90a}}
  %o = flash.paged_attention %q, %k, %v, %bt, %sl : tensor<1x32x1x128xf32>, tensor<64x16x8x128xf32>, tensor<64x16x8x128xf32>, tensor<1x64xi32>, tensor<1xi32> -> tensor<1x32x1x128xf32>
  return %o : tensor<1x32x1x128xf32>
}

// -----

// The kernels take D = Dv in {64, 128, 256}.
func.func @d96(%q: tensor<1x32x1x96xbf16>, %k: tensor<64x16x8x96xbf16>, %v: tensor<64x16x8x96xbf16>, %bt: tensor<1x64xi32>, %sl: tensor<1xi32>) -> tensor<1x32x1x96xbf16> {
  // expected-error @+1 {{not supported yet: head dimension 96 (supported: 64, 128, 256) on sm_90a}}
  %o = flash.paged_attention %q, %k, %v, %bt, %sl : tensor<1x32x1x96xbf16>, tensor<64x16x8x96xbf16>, tensor<64x16x8x96xbf16>, tensor<1x64xi32>, tensor<1xi32> -> tensor<1x32x1x96xbf16>
  return %o : tensor<1x32x1x96xbf16>
}

// -----

func.func @decode(%q: tensor<1x32x1x128xbf16>, %k: tensor<1x8x4096x128xbf16>, %v: tensor<1x8x4096x64xbf16>) -> tensor<1x32x1x64xbf16> {
  // expected-error @+1 {{not supported yet: Dv = 64 != D = 128 on sm_90a}}
  %o = flash.attention %q, %k, %v : tensor<1x32x1x128xbf16>, tensor<1x8x4096x128xbf16>, tensor<1x8x4096x64xbf16> -> tensor<1x32x1x64xbf16>
  return %o : tensor<1x32x1x64xbf16>
}

// -----

// One attention per kernel function (its arguments are the kernel's).
// expected-error @+1 {{not supported yet: more than one attention in one function lowered to GPU kernels}}
func.func @twice(%q: tensor<1x32x1x128xbf16>, %k: tensor<1x8x4096x128xbf16>, %v: tensor<1x8x4096x128xbf16>) -> tensor<1x32x1x128xbf16> {
  %o = flash.attention %q, %k, %v : tensor<1x32x1x128xbf16>, tensor<1x8x4096x128xbf16>, tensor<1x8x4096x128xbf16> -> tensor<1x32x1x128xbf16>
  %p = flash.attention %o, %k, %v : tensor<1x32x1x128xbf16>, tensor<1x8x4096x128xbf16>, tensor<1x8x4096x128xbf16> -> tensor<1x32x1x128xbf16>
  return %p : tensor<1x32x1x128xbf16>
}
