// RUN: flash-opt %s | flash-opt | FileCheck %s
// RUN: flash-opt %s --mlir-print-op-generic | flash-opt | FileCheck %s

// The stable surface of flash.paged_attention, and the L1 ops of the
// split-KV form: every form prints and parses back.

// CHECK-LABEL: func @paged_causal_scaled
// CHECK: flash.paged_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 1.250000e-01 : f32} : tensor<4x32x1x128xbf16>, tensor<1024x16x8x128xbf16>, tensor<1024x16x8x128xbf16>, tensor<4x256xi32>, tensor<4xi32> -> tensor<4x32x1x128xbf16>
func.func @paged_causal_scaled(%q: tensor<4x32x1x128xbf16>, %kc: tensor<1024x16x8x128xbf16>, %vc: tensor<1024x16x8x128xbf16>, %bt: tensor<4x256xi32>, %sl: tensor<4xi32>) -> tensor<4x32x1x128xbf16> {
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl {causal, scale = 0.125 : f32}
      : tensor<4x32x1x128xbf16>, tensor<1024x16x8x128xbf16>, tensor<1024x16x8x128xbf16>, tensor<4x256xi32>, tensor<4xi32> -> tensor<4x32x1x128xbf16>
  return %o : tensor<4x32x1x128xbf16>
}

// Defaults, f16, Dv != D, a second result (LSE), several queries.
// CHECK-LABEL: func @paged_lse_f16
// CHECK: %[[O:.+]], %[[LSE:.+]] = flash.paged_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x4x3x64xf16>, tensor<9x3x2x64xf16>, tensor<9x3x2x32xf16>, tensor<2x5xi32>, tensor<2xi32> -> tensor<2x4x3x32xf16>, tensor<2x4x3xf32>
// CHECK: return %[[O]], %[[LSE]]
func.func @paged_lse_f16(%q: tensor<2x4x3x64xf16>, %kc: tensor<9x3x2x64xf16>, %vc: tensor<9x3x2x32xf16>, %bt: tensor<2x5xi32>, %sl: tensor<2xi32>) -> (tensor<2x4x3x32xf16>, tensor<2x4x3xf32>) {
  %o, %lse = flash.paged_attention %q, %kc, %vc, %bt, %sl
      : tensor<2x4x3x64xf16>, tensor<9x3x2x64xf16>, tensor<9x3x2x32xf16>, tensor<2x5xi32>, tensor<2xi32> -> tensor<2x4x3x32xf16>, tensor<2x4x3xf32>
  return %o, %lse : tensor<2x4x3x32xf16>, tensor<2x4x3xf32>
}

// A split-KV schedule, and dynamic dimensions (valid IR; the passes say
// "not supported yet").
// CHECK-LABEL: func @paged_schedule_dynamic
// CHECK: flash.paged_attention {{.*}} {schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 8, max_splits = 132>} : tensor<?x32x1x128xf32>, tensor<?x16x8x128xf32>, tensor<?x16x8x128xf32>, tensor<?x?xi32>, tensor<?xi32> -> tensor<?x32x1x128xf32>
func.func @paged_schedule_dynamic(%q: tensor<?x32x1x128xf32>, %kc: tensor<?x16x8x128xf32>, %vc: tensor<?x16x8x128xf32>, %bt: tensor<?x?xi32>, %sl: tensor<?xi32>) -> tensor<?x32x1x128xf32> {
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl {schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 8, max_splits = 132>}
      : tensor<?x32x1x128xf32>, tensor<?x16x8x128xf32>, tensor<?x16x8x128xf32>, tensor<?x?xi32>, tensor<?xi32> -> tensor<?x32x1x128xf32>
  return %o : tensor<?x32x1x128xf32>
}

// The L1 ops of the split-KV form.
// CHECK-LABEL: func @split_kv_tile_ops
// CHECK: flash.load_paged_tile %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} : tensor<64x16x2x64xf16>, tensor<2x8xi32> -> tensor<32x64xf16>
// CHECK: flash.mask %{{.*}}[%{{.*}}, %{{.*}}] kv_len(%{{.*}}) causal_offset(%{{.*}}) {rows_per_head = 2 : i64} : tensor<16x32xf32>
// CHECK: flash.mask %{{.*}}[%{{.*}}, %{{.*}}] kv_len(%{{.*}}) : tensor<16x32xf32>
// CHECK: flash.mask %{{.*}}[%{{.*}}, %{{.*}}] {causal_offset = 7 : i64, kv_len = 100 : i64, rows_per_head = 3 : i64} : tensor<16x32xf32>
// CHECK: flash.merge_splits %{{.*}}, %{{.*}}, %{{.*}} : tensor<132x4x64xf32>, tensor<132x4xf32> -> tensor<4x64xbf16>, tensor<4xf32>
func.func @split_kv_tile_ops(%kc: tensor<64x16x2x64xf16>, %bt: tensor<2x8xi32>, %s: tensor<16x32xf32>, %po: tensor<132x4x64xf32>, %pl: tensor<132x4xf32>, %i: index) {
  %t = flash.load_paged_tile %kc, %bt[%i, %i, %i], %i : tensor<64x16x2x64xf16>, tensor<2x8xi32> -> tensor<32x64xf16>
  %m1 = flash.mask %s[%i, %i] kv_len(%i) causal_offset(%i) {rows_per_head = 2 : i64} : tensor<16x32xf32>
  %m2 = flash.mask %s[%i, %i] kv_len(%i) : tensor<16x32xf32>
  %m3 = flash.mask %s[%i, %i] {kv_len = 100 : i64, causal_offset = 7 : i64, rows_per_head = 3 : i64} : tensor<16x32xf32>
  %o, %l = flash.merge_splits %po, %pl, %i : tensor<132x4x64xf32>, tensor<132x4xf32> -> tensor<4x64xbf16>, tensor<4xf32>
  return
}
