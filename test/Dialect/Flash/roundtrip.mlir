// RUN: flash-opt %s | flash-opt | FileCheck %s
// RUN: flash-opt %s --mlir-print-op-generic | flash-opt | FileCheck %s

// The stable surface of flash.attention: every form prints and parses back.

// CHECK-LABEL: func @causal_scaled
// CHECK: flash.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 1.250000e-01 : f32} : tensor<2x8x1000x64xf32>, tensor<2x2x1000x64xf32>, tensor<2x2x1000x64xf32> -> tensor<2x8x1000x64xf32>
func.func @causal_scaled(%q: tensor<2x8x1000x64xf32>, %k: tensor<2x2x1000x64xf32>, %v: tensor<2x2x1000x64xf32>) -> tensor<2x8x1000x64xf32> {
  %o = flash.attention %q, %k, %v {causal, scale = 0.125 : f32}
      : tensor<2x8x1000x64xf32>, tensor<2x2x1000x64xf32>, tensor<2x2x1000x64xf32> -> tensor<2x8x1000x64xf32>
  return %o : tensor<2x8x1000x64xf32>
}

// CHECK-LABEL: func @defaults_f16
// CHECK: flash.attention %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x4x7x32xf16>, tensor<1x4x9x32xf16>, tensor<1x4x9x16xf16> -> tensor<1x4x7x16xf16>
func.func @defaults_f16(%q: tensor<1x4x7x32xf16>, %k: tensor<1x4x9x32xf16>, %v: tensor<1x4x9x16xf16>) -> tensor<1x4x7x16xf16> {
  %o = flash.attention %q, %k, %v : tensor<1x4x7x32xf16>, tensor<1x4x9x32xf16>, tensor<1x4x9x16xf16> -> tensor<1x4x7x16xf16>
  return %o : tensor<1x4x7x16xf16>
}

// CHECK-LABEL: func @lse_bf16_mqa
// CHECK: %[[O:.+]], %[[LSE:.+]] = flash.attention %{{.*}}, %{{.*}}, %{{.*}} {causal} : tensor<2x8x5x128xbf16>, tensor<2x1x300x128xbf16>, tensor<2x1x300x128xbf16> -> tensor<2x8x5x128xbf16>, tensor<2x8x5xf32>
// CHECK: return %[[O]], %[[LSE]]
func.func @lse_bf16_mqa(%q: tensor<2x8x5x128xbf16>, %k: tensor<2x1x300x128xbf16>, %v: tensor<2x1x300x128xbf16>) -> (tensor<2x8x5x128xbf16>, tensor<2x8x5xf32>) {
  %o, %lse = flash.attention %q, %k, %v {causal}
      : tensor<2x8x5x128xbf16>, tensor<2x1x300x128xbf16>, tensor<2x1x300x128xbf16> -> tensor<2x8x5x128xbf16>, tensor<2x8x5xf32>
  return %o, %lse : tensor<2x8x5x128xbf16>, tensor<2x8x5xf32>
}

// Dynamic dimensions are valid IR (the passes say "not supported yet").
// CHECK-LABEL: func @dynamic
// CHECK: flash.attention {{.*}} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
func.func @dynamic(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) -> tensor<?x8x?x64xf32> {
  %o = flash.attention %q, %k, %v : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return %o : tensor<?x8x?x64xf32>
}

// CHECK-LABEL: func @scheduled
// CHECK: schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 176, stages = 2, warps = 12>
func.func @scheduled(%q: tensor<1x2x256x128xbf16>, %k: tensor<1x2x256x128xbf16>, %v: tensor<1x2x256x128xbf16>) -> tensor<1x2x256x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 176, stages = 2, warps = 12>}
      : tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16> -> tensor<1x2x256x128xbf16>
  return %o : tensor<1x2x256x128xbf16>
}

// The L1 tile ops.
// CHECK-LABEL: func @tile_ops
// CHECK: flash.load_tile %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<2x2x100x64xf16> -> tensor<32x64xf16>
// CHECK: flash.qk %{{.*}}, %{{.*}} {scale = 1.250000e-01 : f32} : tensor<16x64xf16>, tensor<32x64xf16> -> tensor<16x32xf32>
// CHECK: flash.mask %{{.*}}[%{{.*}}, %{{.*}}] {causal_offset = -3 : i64, kv_len = 100 : i64} : tensor<16x32xf32>
// CHECK: flash.online_softmax %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
// CHECK: flash.accumulate_pv %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x64xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<32x64xf16>
// CHECK: flash.finalize %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x64xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16x64xf16>, tensor<16xf32>
func.func @tile_ops(%k: tensor<2x2x100x64xf16>, %qt: tensor<16x64xf16>, %i: index,
                    %m: tensor<16xf32>, %l: tensor<16xf32>, %acc: tensor<16x64xf32>) {
  %kt = flash.load_tile %k[%i, %i, %i] : tensor<2x2x100x64xf16> -> tensor<32x64xf16>
  %s = flash.qk %qt, %kt {scale = 0.125 : f32} : tensor<16x64xf16>, tensor<32x64xf16> -> tensor<16x32xf32>
  %sm = flash.mask %s[%i, %i] {kv_len = 100 : i64, causal_offset = -3 : i64} : tensor<16x32xf32>
  %p, %m1, %l1, %a = flash.online_softmax %sm, %m, %l
      : tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  %acc1 = flash.accumulate_pv %acc, %a, %p, %kt : tensor<16x64xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<32x64xf16>
  %o, %lse = flash.finalize %acc1, %m1, %l1 : tensor<16x64xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16x64xf16>, tensor<16xf32>
  return
}
