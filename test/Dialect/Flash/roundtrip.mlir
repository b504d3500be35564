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

// flash.attention_backward: the issue's form (causal, scale), the defaults
// with GQA and Dv != D, a schedule and deterministic.
// CHECK-LABEL: func @backward_causal_scaled
// CHECK: %[[DQ:.+]], %[[DK:.+]], %[[DV:.+]] = flash.attention_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 1.250000e-01 : f32} : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x8x1000x64xbf16>, tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32> -> tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>
// CHECK: return %[[DQ]], %[[DK]], %[[DV]]
func.func @backward_causal_scaled(%q: tensor<2x8x1000x64xbf16>, %k: tensor<2x2x1000x64xbf16>, %v: tensor<2x2x1000x64xbf16>,
                                  %o: tensor<2x8x1000x64xbf16>, %do: tensor<2x8x1000x64xbf16>, %lse: tensor<2x8x1000xf32>)
    -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {causal, scale = 0.125 : f32}
      : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>,
        tensor<2x8x1000x64xbf16>, tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>
      -> tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>
  return %dq, %dk, %dv : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>
}

// CHECK-LABEL: func @backward_defaults_gqa
// CHECK: flash.attention_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x4x7x32xf32>, tensor<1x2x9x32xf32>, tensor<1x2x9x16xf32>, tensor<1x4x7x16xf32>, tensor<1x4x7x16xf32>, tensor<1x4x7xf32> -> tensor<1x4x7x32xf32>, tensor<1x2x9x32xf32>, tensor<1x2x9x16xf32>
func.func @backward_defaults_gqa(%q: tensor<1x4x7x32xf32>, %k: tensor<1x2x9x32xf32>, %v: tensor<1x2x9x16xf32>,
                                 %o: tensor<1x4x7x16xf32>, %do: tensor<1x4x7x16xf32>, %lse: tensor<1x4x7xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse
      : tensor<1x4x7x32xf32>, tensor<1x2x9x32xf32>, tensor<1x2x9x16xf32>, tensor<1x4x7x16xf32>, tensor<1x4x7x16xf32>, tensor<1x4x7xf32>
      -> tensor<1x4x7x32xf32>, tensor<1x2x9x32xf32>, tensor<1x2x9x16xf32>
  return
}

// CHECK-LABEL: func @backward_scheduled_deterministic
// CHECK: flash.attention_backward {{.*}} {causal, deterministic, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>} : tensor<1x2x256x128xf16>
func.func @backward_scheduled_deterministic(%q: tensor<1x2x256x128xf16>, %k: tensor<1x2x256x128xf16>, %v: tensor<1x2x256x128xf16>,
                                            %o: tensor<1x2x256x128xf16>, %do: tensor<1x2x256x128xf16>, %lse: tensor<1x2x256xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse
      {causal, deterministic, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>}
      : tensor<1x2x256x128xf16>, tensor<1x2x256x128xf16>, tensor<1x2x256x128xf16>, tensor<1x2x256x128xf16>, tensor<1x2x256x128xf16>, tensor<1x2x256xf32>
      -> tensor<1x2x256x128xf16>, tensor<1x2x256x128xf16>, tensor<1x2x256x128xf16>
  return
}

// Dynamic dimensions are valid IR here too.
// CHECK-LABEL: func @backward_dynamic
// CHECK: flash.attention_backward {{.*}} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?xf32> -> tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>
func.func @backward_dynamic(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>,
                            %o: tensor<?x8x?x64xf32>, %do: tensor<?x8x?x64xf32>, %lse: tensor<?x8x?xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse
      : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?xf32>
      -> tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>
  return
}

// The backward's L1 tile ops (and load_tile of row statistics).
// CHECK-LABEL: func @backward_tile_ops
// CHECK: flash.load_tile %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<2x8x100xf32> -> tensor<16xf32>
// CHECK: flash.row_dot %{{.*}}, %{{.*}} : tensor<16x32xbf16>, tensor<16x32xbf16> -> tensor<16xf32>
// CHECK: flash.recompute_probs %{{.*}}, %{{.*}} : tensor<16x64xf32>, tensor<16xf32>
// CHECK: flash.score_grad %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x64xf32>, tensor<16xf32>
// CHECK: flash.accumulate_product %{{.*}}, %{{.*}}, %{{.*}} {transpose_lhs} : tensor<64x32xf32>, tensor<16x64xf32>, tensor<16x32xbf16>
// CHECK: flash.accumulate_product %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<16x64xf32>, tensor<64x32xbf16>
// CHECK: flash.finalize_grad %{{.*}} {scale = 1.250000e-01 : f32} : tensor<64x32xf32> -> tensor<64x32xbf16>
func.func @backward_tile_ops(%lse: tensor<2x8x100xf32>, %i: index, %dot: tensor<16x32xbf16>, %ot: tensor<16x32xbf16>,
                             %s: tensor<16x64xf32>, %dp: tensor<16x64xf32>, %kt: tensor<64x32xbf16>,
                             %dv: tensor<64x32xf32>, %dq: tensor<16x32xf32>) {
  %lt = flash.load_tile %lse[%i, %i, %i] : tensor<2x8x100xf32> -> tensor<16xf32>
  %d = flash.row_dot %dot, %ot : tensor<16x32xbf16>, tensor<16x32xbf16> -> tensor<16xf32>
  %p = flash.recompute_probs %s, %lt : tensor<16x64xf32>, tensor<16xf32>
  %ds = flash.score_grad %p, %dp, %d : tensor<16x64xf32>, tensor<16xf32>
  %dv1 = flash.accumulate_product %dv, %p, %dot {transpose_lhs} : tensor<64x32xf32>, tensor<16x64xf32>, tensor<16x32xbf16>
  %dq1 = flash.accumulate_product %dq, %ds, %kt : tensor<16x32xf32>, tensor<16x64xf32>, tensor<64x32xbf16>
  %r = flash.finalize_grad %dv1 {scale = 0.125 : f32} : tensor<64x32xf32> -> tensor<64x32xbf16>
  return
}
