// Host code runs on the CPU over device buffers: --flash-host-to-llvm
// (flash-check-host-code, after bufferization) refuses, with a located
// "not supported yet", any op that would read or write their elements there
// or put a buffer in host memory, instead of an object file that crashes.
// RUN: not flash-opt %s --split-input-file --flash-host-to-llvm 2>&1 | FileCheck %s
// RUN: flash-opt %s --split-input-file --flash-check-host-code -verify-diagnostics

// Elementwise work on the attention's output (a loop over device memory on
// the CPU once lowered).
// CHECK: host-to-llvm-errors.mlir:[[@LINE+5]]:8: error: 'linalg.generic' op not supported yet: reading or writing the elements of a buffer in host code around flash.attention (the host code runs on the CPU over device buffers: it may make views of them, allocate and free them, and pass them to calls)
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @residual(%q: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = flash.attention %q, %q, %q : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>
  %e = tensor.empty() : tensor<1x1x64x64xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o, %q : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) outs(%e : tensor<1x1x64x64xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: bf16):
    %s = arith.addf %a, %b : bf16
    linalg.yield %s : bf16
  } -> tensor<1x1x64x64xbf16>
  return %r : tensor<1x1x64x64xbf16>
}

// -----

// A returned view of the result is copied into the out-parameter.
// CHECK: error: 'memref.copy' op not supported yet: reading or writing the elements of a buffer in host code
func.func @view_returned(%q: tensor<1x2x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = flash.attention %q, %q, %q : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  %s = tensor.extract_slice %o[0, 1, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1] : tensor<1x2x64x64xbf16> to tensor<1x1x64x64xbf16>
  return %s : tensor<1x1x64x64xbf16>
}

// -----

// A result of dynamic shape: hoist-static-allocs leaves its allocation in the
// function, which copies it into the out-parameter.
// CHECK: host-to-llvm-errors.mlir:[[@LINE+3]]:3: error: 'memref.copy' op not supported yet: reading or writing the elements of a buffer in host code
func.func @dynamic_result(%q: tensor<1x1x?x64xbf16>) -> tensor<1x1x?x64xbf16> {
  %o = flash.attention %q, %q, %q : tensor<1x1x?x64xbf16>, tensor<1x1x?x64xbf16>, tensor<1x1x?x64xbf16> -> tensor<1x1x?x64xbf16>
  return %o : tensor<1x1x?x64xbf16>
}

// -----

// A constant tensor becomes a global in host memory.
// CHECK: error: 'memref.get_global' op not supported yet: a buffer in host memory in host code around flash.attention
func.func @constant_keys(%q: tensor<1x1x4x64xbf16>) -> tensor<1x1x4x64xbf16> {
  %k = arith.constant dense<1.0> : tensor<1x1x4x64xbf16>
  %o = flash.attention %q, %k, %k : tensor<1x1x4x64xbf16>, tensor<1x1x4x64xbf16>, tensor<1x1x4x64xbf16> -> tensor<1x1x4x64xbf16>
  return %o : tensor<1x1x4x64xbf16>
}

// -----

// One buffer returned twice (upstream's buffer-results-to-out-params with
// hoist-static-allocs crashed on it).
// CHECK: host-to-llvm-errors.mlir:[[@LINE+3]]:3: error: 'func.return' op not supported yet: one buffer returned as several results from host code around flash.attention (each further result would be a copy in host code)
func.func @twice(%q: tensor<1x1x64x64xbf16>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  %o = flash.attention %q, %q, %q : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>
  return %o, %o : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
}

// -----

// On memrefs already (the check alone): loads, stores and stack buffers.
func.func @on_memrefs(%m: memref<4xf32>, %i: index) -> f32 {
  // expected-error @+1 {{'memref.alloca' op not supported yet: a buffer in host memory}}
  %a = memref.alloca() : memref<4xf32>
  // expected-error @+1 {{'memref.load' op not supported yet: reading or writing the elements of a buffer}}
  %x = memref.load %m[%i] : memref<4xf32>
  %v = memref.subview %m[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
  return %x : f32
}
