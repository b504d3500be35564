// RUN: flash-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of flash.attention, flash.attention_backward and
// their L1 tile ops.

func.func @query_rank(%q: tensor<8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{query must be a rank-4 tensor (B×Hq×Nq×D), got rank 3}}
  %o = flash.attention %q, %k, %v : tensor<8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @key_rank(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64x1xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{key must be a rank-4 tensor (B×Hkv×Nk×D), got rank 5}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf32>, tensor<2x2x100x64x1xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @value_rank(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<100x64xf32>) {
  // expected-error @+1 {{value must be a rank-4 tensor (B×Hkv×Nk×Dv), got rank 2}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @output_rank(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{output must be a rank-4 tensor (B×Hq×Nq×Dv), got rank 3}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<16x100x64xf32>
  return
}

// -----

func.func @not_a_tensor(%q: memref<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'memref<2x8x100x64xf32>'}}
  %o = flash.attention %q, %k, %v : memref<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @non_float(%q: tensor<2x8x100x64xi32>, %k: tensor<2x2x100x64xi32>, %v: tensor<2x2x100x64xi32>) {
  // expected-error @+1 {{query element type must be f32, f16 or bf16, got 'i32'}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xi32>, tensor<2x2x100x64xi32>, tensor<2x2x100x64xi32> -> tensor<2x8x100x64xi32>
  return
}

// -----

func.func @f64_unsupported(%q: tensor<2x8x100x64xf64>, %k: tensor<2x2x100x64xf64>, %v: tensor<2x2x100x64xf64>) {
  // expected-error @+1 {{query element type must be f32, f16 or bf16, got 'f64'}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf64>, tensor<2x2x100x64xf64>, tensor<2x2x100x64xf64> -> tensor<2x8x100x64xf64>
  return
}

// -----

func.func @key_element_mix(%q: tensor<2x8x100x64xf16>, %k: tensor<2x2x100x64xbf16>, %v: tensor<2x2x100x64xf16>) {
  // expected-error @+1 {{key element type 'bf16' must match query element type 'f16'}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xf16> -> tensor<2x8x100x64xf16>
  return
}

// -----

func.func @value_element_mix(%q: tensor<2x8x100x64xf16>, %k: tensor<2x2x100x64xf16>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{value element type 'f32' must match query element type 'f16'}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf16>, tensor<2x2x100x64xf16>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf16>
  return
}

// -----

func.func @output_element_mix(%q: tensor<2x8x100x64xf16>, %k: tensor<2x2x100x64xf16>, %v: tensor<2x2x100x64xf16>) {
  // expected-error @+1 {{output element type 'f32' must match query element type 'f16'}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf16>, tensor<2x2x100x64xf16>, tensor<2x2x100x64xf16> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @zero_kv_heads(%q: tensor<2x8x100x64xf32>, %k: tensor<2x0x100x64xf32>, %v: tensor<2x0x100x64xf32>) {
  // expected-error @+1 {{key must have at least one head, got 0}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf32>, tensor<2x0x100x64xf32>, tensor<2x0x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @zero_head_dim(%q: tensor<2x8x100x0xf32>, %k: tensor<2x2x100x0xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{query head dimension D must be positive, got 0}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x0xf32>, tensor<2x2x100x0xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @zero_value_dim(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x0xf32>) {
  // expected-error @+1 {{value head dimension Dv must be positive, got 0}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x0xf32> -> tensor<2x8x100x0xf32>
  return
}

// -----

func.func @key_batch(%q: tensor<2x8x100x64xf32>, %k: tensor<3x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{key batch size 3 must match query batch size 2}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf32>, tensor<3x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @value_batch(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<1x2x100x64xf32>) {
  // expected-error @+1 {{value batch size 1 must match query batch size 2}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<1x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @value_heads(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x4x100x64xf32>) {
  // expected-error @+1 {{value heads 4 must match key heads 2}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x4x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @gqa_not_multiple(%q: tensor<2x8x100x64xf32>, %k: tensor<2x3x100x64xf32>, %v: tensor<2x3x100x64xf32>) {
  // expected-error @+1 {{query heads 8 must be a multiple of key/value heads 3 (grouped-query attention)}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf32>, tensor<2x3x100x64xf32>, tensor<2x3x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @head_dim_mismatch(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x32xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{key head dimension 32 must match query head dimension 64}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf32>, tensor<2x2x100x32xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @kv_length_mismatch(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x99x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{value sequence length 100 must match key sequence length 99}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf32>, tensor<2x2x99x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @output_shape(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x32xf32>) {
  // expected-error @+1 {{output shape 2x8x100x64 must be B×Hq×Nq×Dv = 2x8x100x32}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x32xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @output_seq(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x50x64xf32>, %v: tensor<2x2x50x64xf32>) {
  // expected-error @+1 {{output shape 2x8x50x64 must be B×Hq×Nq×Dv = 2x8x100x64}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf32>, tensor<2x2x50x64xf32>, tensor<2x2x50x64xf32> -> tensor<2x8x50x64xf32>
  return
}

// -----

func.func @lse_element(%q: tensor<2x8x100x64xf16>, %k: tensor<2x2x100x64xf16>, %v: tensor<2x2x100x64xf16>) {
  // expected-error @+1 {{lse element type must be f32, got 'f16'}}
  %o, %l = flash.attention %q, %k, %v : tensor<2x8x100x64xf16>, tensor<2x2x100x64xf16>, tensor<2x2x100x64xf16> -> tensor<2x8x100x64xf16>, tensor<2x8x100xf16>
  return
}

// -----

func.func @lse_rank(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{lse must be a rank-3 tensor (B×Hq×Nq = 2x8x100), got rank 4}}
  %o, %l = flash.attention %q, %k, %v : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>, tensor<2x8x100x1xf32>
  return
}

// -----

func.func @lse_shape(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{lse shape 2x2x100 must be B×Hq×Nq = 2x8x100}}
  %o, %l = flash.attention %q, %k, %v : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x100xf32>
  return
}

// -----

func.func @scale_zero(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{scale must be finite and non-zero, got 0}}
  %o = flash.attention %q, %k, %v {scale = 0.0 : f32} : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @scale_inf(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{scale must be finite and non-zero, got inf}}
  %o = flash.attention %q, %k, %v {scale = 0x7F800000 : f32} : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @scale_nan(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{scale must be finite and non-zero, got nan}}
  %o = flash.attention %q, %k, %v {scale = 0x7FC00000 : f32} : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @scale_type(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{attribute 'scale' failed to satisfy constraint: 32-bit float attribute}}
  %o = flash.attention %q, %k, %v {scale = 1 : i32} : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @schedule_arch(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{unknown arch 'sm_75' in #flash.schedule; expected sm_80, sm_90a or sm_100a}}
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_75", block_q = 64, block_kv = 64, stages = 2, warps = 4>} : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @schedule_block(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{block_q must be positive, got 0}}
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 0, block_kv = 64, stages = 2, warps = 4>} : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @schedule_block_kv(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{block_kv must be positive, got -4}}
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = -4, stages = 2, warps = 4>} : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @schedule_stages(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{stages must be positive, got 0}}
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 0, warps = 4>} : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @schedule_warps(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{warps must be positive, got 0}}
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 0>} : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @too_many_results(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{expected '->'}}
  %o = flash.attention %q, %k, %v : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>
  return
}

// -----

// L1 tile ops.

func.func @load_tile_width(%k: tensor<2x2x100x64xf32>, %i: index) {
  // expected-error @+1 {{tile width 32 must match the source head dimension 64}}
  %t = flash.load_tile %k[%i, %i, %i] : tensor<2x2x100x64xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @load_tile_element(%k: tensor<2x2x100x64xf32>, %i: index) {
  // expected-error @+1 {{tile element type 'f16' must match source element type 'f32'}}
  %t = flash.load_tile %k[%i, %i, %i] : tensor<2x2x100x64xf32> -> tensor<16x64xf16>
  return
}

// -----

func.func @load_tile_source_rank(%k: tensor<100x64xf32>, %i: index) {
  // expected-error @+1 {{source must be a rank-4 (B×H×N×D) or rank-3 (B×H×N) tensor, got rank 2}}
  %t = flash.load_tile %k[%i, %i, %i] : tensor<100x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @load_tile_dynamic(%k: tensor<2x2x100x64xf32>, %i: index) {
  // expected-error @+1 {{tile must have a static shape, got ?x64}}
  %t = flash.load_tile %k[%i, %i, %i] : tensor<2x2x100x64xf32> -> tensor<?x64xf32>
  return
}

// -----

func.func @qk_shape(%q: tensor<16x64xf16>, %k: tensor<32x64xf16>) {
  // expected-error @+1 {{score tile must be 16x32 (Br×Bc), got 16x16}}
  %s = flash.qk %q, %k {scale = 1.0 : f32} : tensor<16x64xf16>, tensor<32x64xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @qk_width(%q: tensor<16x64xf16>, %k: tensor<32x32xf16>) {
  // expected-error @+1 {{query tile width 64 must match key tile width 32}}
  %s = flash.qk %q, %k {scale = 1.0 : f32} : tensor<16x64xf16>, tensor<32x32xf16> -> tensor<16x32xf32>
  return
}

// -----

func.func @qk_element(%q: tensor<16x64xf16>, %k: tensor<32x64xbf16>) {
  // expected-error @+1 {{query and key tiles must share an element type}}
  %s = flash.qk %q, %k {scale = 1.0 : f32} : tensor<16x64xf16>, tensor<32x64xbf16> -> tensor<16x32xf32>
  return
}

// -----

func.func @qk_scores_f32(%q: tensor<16x64xf16>, %k: tensor<32x64xf16>) {
  // expected-error @+1 {{score tile must be f32, got 'f16'}}
  %s = flash.qk %q, %k {scale = 1.0 : f32} : tensor<16x64xf16>, tensor<32x64xf16> -> tensor<16x32xf16>
  return
}

// -----

func.func @mask_rank(%s: tensor<16xf32>, %i: index) {
  // expected-error @+1 {{score tile must have rank 2, got 1}}
  %m = flash.mask %s[%i, %i] {kv_len = 10 : i64} : tensor<16xf32>
  return
}

// -----

func.func @mask_kv_len(%s: tensor<16x16xf32>, %i: index) {
  // expected-error @+1 {{kv_len must be non-negative, got -1}}
  %m = flash.mask %s[%i, %i] {kv_len = -1 : i64} : tensor<16x16xf32>
  return
}

// -----

func.func @softmax_rows(%s: tensor<16x32xf32>, %m: tensor<8xf32>, %l: tensor<16xf32>) {
  // expected-error @+1 {{running max must have 16 rows (one per tile row), got 8}}
  %p, %m1, %l1, %a = flash.online_softmax %s, %m, %l : tensor<16x32xf32>, tensor<8xf32>, tensor<16xf32> -> tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @softmax_probs(%s: tensor<16x32xf32>, %m: tensor<16xf32>, %l: tensor<16xf32>) {
  // expected-error @+1 {{probabilities must have the score tile's type 'tensor<16x32xf32>'}}
  %p, %m1, %l1, %a = flash.online_softmax %s, %m, %l : tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @softmax_f32(%s: tensor<16x32xf32>, %m: tensor<16xf16>, %l: tensor<16xf32>) {
  // expected-error @+1 {{running max must be f32, got 'f16'}}
  %p, %m1, %l1, %a = flash.online_softmax %s, %m, %l : tensor<16x32xf32>, tensor<16xf16>, tensor<16xf32> -> tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @pv_compose(%acc: tensor<16x64xf32>, %a: tensor<16xf32>, %p: tensor<16x32xf32>, %v: tensor<16x64xf16>) {
  // expected-error @+1 {{shapes do not compose: accumulator 16x64 += probabilities 16x32 · value 16x64}}
  %r = flash.accumulate_pv %acc, %a, %p, %v : tensor<16x64xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<16x64xf16>
  return
}

// -----

func.func @pv_rescale(%acc: tensor<16x64xf32>, %a: tensor<32xf32>, %p: tensor<16x32xf32>, %v: tensor<32x64xf16>) {
  // expected-error @+1 {{rescale must have 16 rows (one per tile row), got 32}}
  %r = flash.accumulate_pv %acc, %a, %p, %v : tensor<16x64xf32>, tensor<32xf32>, tensor<16x32xf32>, tensor<32x64xf16>
  return
}

// -----

func.func @pv_acc_f32(%acc: tensor<16x64xf16>, %a: tensor<16xf32>, %p: tensor<16x32xf32>, %v: tensor<32x64xf16>) {
  // expected-error @+1 {{accumulator must be f32, got 'f16'}}
  %r = flash.accumulate_pv %acc, %a, %p, %v : tensor<16x64xf16>, tensor<16xf32>, tensor<16x32xf32>, tensor<32x64xf16>
  return
}

// -----

func.func @finalize_shape(%acc: tensor<16x64xf32>, %m: tensor<16xf32>, %l: tensor<16xf32>) {
  // expected-error @+1 {{output tile shape 16x32 must match accumulator shape 16x64}}
  %o, %lse = flash.finalize %acc, %m, %l : tensor<16x64xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16x32xf16>, tensor<16xf32>
  return
}

// -----

func.func @finalize_lse(%acc: tensor<16x64xf32>, %m: tensor<16xf32>, %l: tensor<16xf32>) {
  // expected-error @+1 {{lse must have 16 rows (one per tile row), got 8}}
  %o, %lse = flash.finalize %acc, %m, %l : tensor<16x64xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16x64xf16>, tensor<8xf32>
  return
}

// -----

func.func @finalize_element(%acc: tensor<16x64xf32>, %m: tensor<16xf32>, %l: tensor<16xf32>) {
  // expected-error @+1 {{output tile element type must be f32, f16 or bf16}}
  %o, %lse = flash.finalize %acc, %m, %l : tensor<16x64xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16x64xi8>, tensor<16xf32>
  return
}

// -----

// flash.attention_backward: one case per diagnostic.

func.func @bwd_query_rank(%q: tensor<8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{query must be a rank-4 tensor (B×Hq×Nq×D), got rank 3}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

// flash.paged_attention and the split-KV L1 ops (flash.mask's run-time
// form, flash.load_paged_tile, flash.merge_splits), and #flash.schedule's
// max_splits.

func.func @paged_query_rank(%q: tensor<2x8x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{query must be a rank-4 tensor (B×Hq×Nq×D), got rank 3}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @bwd_key_rank(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64x1xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{key must be a rank-4 tensor (B×Hkv×Nk×D), got rank 5}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64x1xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @paged_key_cache_rank(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{key_cache must be a rank-4 tensor (P×S×Hkv×D), got rank 3}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @bwd_value_rank(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{value must be a rank-4 tensor (B×Hkv×Nk×Dv), got rank 2}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @paged_value_cache_rank(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64x1xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{value_cache must be a rank-4 tensor (P×S×Hkv×Dv), got rank 5}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64x1xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @bwd_output_rank(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{output must be a rank-4 tensor (B×Hq×Nq×Dv), got rank 3}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @paged_block_table_rank(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<16xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{block_table must be a rank-2 tensor (B×M), got rank 1}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<16xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @paged_seq_lens_rank(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2x1xi32>) {
  // expected-error @+1 {{seq_lens must be a rank-1 tensor (B), got rank 2}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2x1xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @paged_output_rank(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{output must be a rank-4 tensor (B×Hq×Nq×Dv), got rank 3}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x64xf32>
  return
}

// -----

func.func @bwd_grad_output_rank(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{grad_output must be a rank-4 tensor (B×Hq×Nq×Dv), got rank 3}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @paged_element_type(%q: tensor<2x8x1x64xi8>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{query element type must be f32, f16 or bf16, got 'i8'}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xi8>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @bwd_grad_query_rank(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{grad_query must be a rank-4 tensor (B×Hq×Nq×D), got rank 3}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @paged_cache_element_type(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf16>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{key_cache element type 'f16' must match query element type 'f32'}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf16>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @bwd_grad_key_rank(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{grad_key must be a rank-4 tensor (B×Hkv×Nk×D), got rank 3}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @paged_output_element_type(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{output element type 'bf16' must match query element type 'f32'}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xbf16>
  return
}

// -----

func.func @bwd_grad_value_rank(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{grad_value must be a rank-4 tensor (B×Hkv×Nk×Dv), got rank 3}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x120x32xf32>
  return
}

// -----

func.func @paged_block_table_type(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi64>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{block_table element type must be i32, got 'i64'}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi64>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @bwd_non_float(%q: tensor<2x8x100x64xi32>, %k: tensor<2x2x120x64xi32>, %v: tensor<2x2x120x32xi32>, %o: tensor<2x8x100x32xi32>, %do: tensor<2x8x100x32xi32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{query element type must be f32, f16 or bf16, got 'i32'}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xi32>, tensor<2x2x120x64xi32>, tensor<2x2x120x32xi32>, tensor<2x8x100x32xi32>, tensor<2x8x100x32xi32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xi32>, tensor<2x2x120x64xi32>, tensor<2x2x120x32xi32>
  return
}

// -----

func.func @paged_seq_lens_type(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xindex>) {
  // expected-error @+1 {{seq_lens element type must be i32, got 'index'}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xindex> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @bwd_key_element(%q: tensor<2x8x100x64xf16>, %k: tensor<2x2x120x64xbf16>, %v: tensor<2x2x120x32xf16>, %o: tensor<2x8x100x32xf16>, %do: tensor<2x8x100x32xf16>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{key element type 'bf16' must match query element type 'f16'}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf16>, tensor<2x2x120x64xbf16>, tensor<2x2x120x32xf16>, tensor<2x8x100x32xf16>, tensor<2x8x100x32xf16>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf16>, tensor<2x2x120x64xf16>, tensor<2x2x120x32xf16>
  return
}

// -----

func.func @paged_no_pages(%q: tensor<2x8x1x64xf32>, %kc: tensor<0x4x2x64xf32>, %vc: tensor<0x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{key_cache must have at least one page, got 0}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<0x4x2x64xf32>, tensor<0x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @bwd_value_element(%q: tensor<2x8x100x64xf16>, %k: tensor<2x2x120x64xf16>, %v: tensor<2x2x120x32xbf16>, %o: tensor<2x8x100x32xf16>, %do: tensor<2x8x100x32xf16>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{value element type 'bf16' must match query element type 'f16'}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf16>, tensor<2x2x120x64xf16>, tensor<2x2x120x32xbf16>, tensor<2x8x100x32xf16>, tensor<2x8x100x32xf16>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf16>, tensor<2x2x120x64xf16>, tensor<2x2x120x32xf16>
  return
}

// -----

func.func @paged_page_size(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x0x2x64xf32>, %vc: tensor<16x0x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{key_cache page size S must be positive, got 0}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x0x2x64xf32>, tensor<16x0x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @bwd_output_element(%q: tensor<2x8x100x64xf16>, %k: tensor<2x2x120x64xf16>, %v: tensor<2x2x120x32xf16>, %o: tensor<2x8x100x32xbf16>, %do: tensor<2x8x100x32xf16>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{output element type 'bf16' must match query element type 'f16'}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf16>, tensor<2x2x120x64xf16>, tensor<2x2x120x32xf16>, tensor<2x8x100x32xbf16>, tensor<2x8x100x32xf16>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf16>, tensor<2x2x120x64xf16>, tensor<2x2x120x32xf16>
  return
}

// -----

func.func @paged_no_heads(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x0x64xf32>, %vc: tensor<16x4x0x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{key_cache must have at least one head, got 0}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x0x64xf32>, tensor<16x4x0x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @bwd_grad_output_element(%q: tensor<2x8x100x64xf16>, %k: tensor<2x2x120x64xf16>, %v: tensor<2x2x120x32xf16>, %o: tensor<2x8x100x32xf16>, %do: tensor<2x8x100x32xbf16>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{grad_output element type 'bf16' must match query element type 'f16'}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf16>, tensor<2x2x120x64xf16>, tensor<2x2x120x32xf16>, tensor<2x8x100x32xf16>, tensor<2x8x100x32xbf16>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf16>, tensor<2x2x120x64xf16>, tensor<2x2x120x32xf16>
  return
}

// -----

func.func @bwd_grad_query_element(%q: tensor<2x8x100x64xf16>, %k: tensor<2x2x120x64xf16>, %v: tensor<2x2x120x32xf16>, %o: tensor<2x8x100x32xf16>, %do: tensor<2x8x100x32xf16>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{grad_query element type 'bf16' must match query element type 'f16'}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf16>, tensor<2x2x120x64xf16>, tensor<2x2x120x32xf16>, tensor<2x8x100x32xf16>, tensor<2x8x100x32xf16>, tensor<2x8x100xf32> -> tensor<2x8x100x64xbf16>, tensor<2x2x120x64xf16>, tensor<2x2x120x32xf16>
  return
}

// -----

func.func @bwd_grad_key_element(%q: tensor<2x8x100x64xf16>, %k: tensor<2x2x120x64xf16>, %v: tensor<2x2x120x32xf16>, %o: tensor<2x8x100x32xf16>, %do: tensor<2x8x100x32xf16>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{grad_key element type 'bf16' must match query element type 'f16'}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf16>, tensor<2x2x120x64xf16>, tensor<2x2x120x32xf16>, tensor<2x8x100x32xf16>, tensor<2x8x100x32xf16>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf16>, tensor<2x2x120x64xbf16>, tensor<2x2x120x32xf16>
  return
}

// -----

func.func @bwd_grad_value_element(%q: tensor<2x8x100x64xf16>, %k: tensor<2x2x120x64xf16>, %v: tensor<2x2x120x32xf16>, %o: tensor<2x8x100x32xf16>, %do: tensor<2x8x100x32xf16>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{grad_value element type 'bf16' must match query element type 'f16'}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf16>, tensor<2x2x120x64xf16>, tensor<2x2x120x32xf16>, tensor<2x8x100x32xf16>, tensor<2x8x100x32xf16>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf16>, tensor<2x2x120x64xf16>, tensor<2x2x120x32xbf16>
  return
}

// -----

func.func @bwd_zero_heads(%q: tensor<2x8x100x64xf32>, %k: tensor<2x0x120x64xf32>, %v: tensor<2x0x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{key must have at least one head, got 0}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x0x120x64xf32>, tensor<2x0x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x0x120x64xf32>, tensor<2x0x120x32xf32>
  return
}

// -----

func.func @bwd_zero_head_dim(%q: tensor<2x8x100x0xf32>, %k: tensor<2x2x120x0xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{query head dimension D must be positive, got 0}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x0xf32>, tensor<2x2x120x0xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x0xf32>, tensor<2x2x120x0xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @paged_head_dim(%q: tensor<2x8x1x0xf32>, %kc: tensor<16x4x2x0xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{query head dimension D must be positive, got 0}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x0xf32>, tensor<16x4x2x0xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @bwd_zero_value_dim(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x0xf32>, %o: tensor<2x8x100x0xf32>, %do: tensor<2x8x100x0xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{value head dimension Dv must be positive, got 0}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x0xf32>, tensor<2x8x100x0xf32>, tensor<2x8x100x0xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x0xf32>
  return
}

// -----

func.func @paged_value_dim(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x0xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{value_cache head dimension Dv must be positive, got 0}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x0xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x0xf32>
  return
}

// -----

func.func @bwd_key_batch(%q: tensor<2x8x100x64xf32>, %k: tensor<3x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{key batch size 3 must match query batch size 2}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<3x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @paged_value_cache_shape(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x8x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{value_cache shape 16x8x2x64 must have the pages, slots and heads of key_cache 16x4x2x64 (P×S×Hkv×Dv)}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x8x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @bwd_value_batch(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<3x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{value batch size 3 must match query batch size 2}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<3x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @paged_head_dim_mismatch(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x32xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{key_cache head dimension 32 must match query head dimension 64}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x32xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @bwd_value_heads(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x4x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{value heads 4 must match key heads 2}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x4x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @bwd_gqa(%q: tensor<2x8x100x64xf32>, %k: tensor<2x3x120x64xf32>, %v: tensor<2x3x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{query heads 8 must be a multiple of key/value heads 3 (grouped-query attention)}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x3x120x64xf32>, tensor<2x3x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x3x120x64xf32>, tensor<2x3x120x32xf32>
  return
}

// -----

func.func @paged_gqa(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x3x64xf32>, %vc: tensor<16x4x3x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{query heads 8 must be a multiple of key/value heads 3 (grouped-query attention)}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x3x64xf32>, tensor<16x4x3x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @bwd_key_dim(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x32xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{key head dimension 32 must match query head dimension 64}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x32xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @paged_block_table_batch(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<3x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{block_table batch size 3 must match query batch size 2}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<3x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @bwd_value_len(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x100x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{value sequence length 100 must match key sequence length 120}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @paged_seq_lens_batch(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<4xi32>) {
  // expected-error @+1 {{seq_lens size 4 must match query batch size 2}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<4xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @bwd_output_shape(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x64xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{output shape 2x8x100x64 must be B×Hq×Nq×Dv = 2x8x100x32}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x64xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @paged_output_shape(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{output shape 2x8x2x64 must be B×Hq×Nq×Dv = 2x8x1x64}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x2x64xf32>
  return
}

// -----

func.func @bwd_grad_output_shape(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x99x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{grad_output shape 2x8x99x32 must be B×Hq×Nq×Dv = 2x8x100x32}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x99x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @bwd_grad_query_shape(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{grad_query shape 2x8x100x32 must be the query's B×Hq×Nq×D = 2x8x100x64}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x32xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @bwd_grad_key_shape(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{grad_key shape 2x8x120x64 must be the key's B×Hkv×Nk×D = 2x2x120x64}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x8x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @bwd_grad_value_shape(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{grad_value shape 2x2x100x32 must be the value's B×Hkv×Nk×Dv = 2x2x120x32}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x100x32xf32>
  return
}

// -----

func.func @bwd_lse_element(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf16>) {
  // expected-error @+1 {{lse element type must be f32, got 'f16'}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf16> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @paged_lse_type(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{lse element type must be f32, got 'f16'}}
  %o, %l = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>, tensor<2x8x1xf16>
  return
}

// -----

func.func @bwd_lse_rank(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<16x100xf32>) {
  // expected-error @+1 {{lse must be a rank-3 tensor (B×Hq×Nq = 2x8x100), got rank 2}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<16x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @paged_lse_rank(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{lse must be a rank-3 tensor (B×Hq×Nq = 2x8x1), got rank 2}}
  %o, %l = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @bwd_lse_shape(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x64xf32>) {
  // expected-error @+1 {{lse shape 2x8x64 must be B×Hq×Nq = 2x8x100}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x64xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @paged_lse_shape(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{lse shape 2x4x1 must be B×Hq×Nq = 2x8x1}}
  %o, %l = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>, tensor<2x4x1xf32>
  return
}

// -----

func.func @bwd_scale_nan(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{scale must be finite and non-zero, got nan}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {scale = 0x7FC00000 : f32} : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @bwd_scale_inf(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{scale must be finite and non-zero, got -inf}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {scale = 0xFF800000 : f32} : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @bwd_scale_zero(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x120x64xf32>, %v: tensor<2x2x120x32xf32>, %o: tensor<2x8x100x32xf32>, %do: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) {
  // expected-error @+1 {{scale must be finite and non-zero, got 0}}
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {scale = 0.0 : f32} : tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100x32xf32>, tensor<2x8x100xf32> -> tensor<2x8x100x64xf32>, tensor<2x2x120x64xf32>, tensor<2x2x120x32xf32>
  return
}

// -----

func.func @paged_scale_zero(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{scale must be finite and non-zero, got 0}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl {scale = 0.0 : f32} : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

// The backward's L1 tile ops.

func.func @load_tile_stats_rank(%lse: tensor<2x8x100xf32>, %i: index) {
  // expected-error @+1 {{tile must have rank 1, got 2}}
  %t = flash.load_tile %lse[%i, %i, %i] : tensor<2x8x100xf32> -> tensor<16x1xf32>
  return
}

// -----

func.func @paged_scale_inf(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{scale must be finite and non-zero, got inf}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl {scale = 0x7F800000 : f32} : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @row_dot_rank(%x: tensor<16xf16>) {
  // expected-error @+1 {{lhs tile must have rank 2, got 1}}
  %d = flash.row_dot %x, %x : tensor<16xf16>, tensor<16xf16> -> tensor<16xf32>
  return
}

// -----

func.func @paged_scale_nan(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{scale must be finite and non-zero, got nan}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl {scale = 0x7FC00000 : f32} : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @row_dot_element(%x: tensor<16x8xi32>) {
  // expected-error @+1 {{lhs tile element type must be f32, f16 or bf16, got 'i32'}}
  %d = flash.row_dot %x, %x : tensor<16x8xi32>, tensor<16x8xi32> -> tensor<16xf32>
  return
}

// -----

func.func @paged_schedule_not_split(%q: tensor<2x8x1x64xf32>, %kc: tensor<16x4x2x64xf32>, %vc: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %sl: tensor<2xi32>) {
  // expected-error @+1 {{schedule must be a split-KV schedule (max_splits >= 1): paged attention is always computed in parts that are merged}}
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl {schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>} : tensor<2x8x1x64xf32>, tensor<16x4x2x64xf32>, tensor<16x4x2x64xf32>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return
}

// -----

func.func @row_dot_rhs(%x: tensor<16x8xf16>, %y: tensor<16x8xbf16>) {
  // expected-error @+1 {{rhs tile must have the lhs tile's type 'tensor<16x8xf16>', got 'tensor<16x8xbf16>'}}
  %d = flash.row_dot %x, %y : tensor<16x8xf16>, tensor<16x8xbf16> -> tensor<16xf32>
  return
}

// -----

func.func @schedule_max_splits(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) {
  // expected-error @+1 {{max_splits must be non-negative (0: no split-KV), got -1}}
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4, max_splits = -1>} : tensor<2x8x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x8x100x64xf32>
  return
}

// -----

func.func @row_dot_rows(%x: tensor<16x8xf16>) {
  // expected-error @+1 {{result must have 16 rows (one per tile row), got 8}}
  %d = flash.row_dot %x, %x : tensor<16x8xf16>, tensor<16x8xf16> -> tensor<8xf32>
  return
}

// -----

func.func @mask_two_kv_lens(%s: tensor<16x16xf32>, %i: index) {
  // expected-error @+1 {{needs exactly one kv_len: an attribute or an operand}}
  %m = flash.mask %s[%i, %i] kv_len(%i) {kv_len = 10 : i64} : tensor<16x16xf32>
  return
}

// -----

func.func @row_dot_f32(%x: tensor<16x8xf16>) {
  // expected-error @+1 {{result must be f32, got 'f16'}}
  %d = flash.row_dot %x, %x : tensor<16x8xf16>, tensor<16x8xf16> -> tensor<16xf16>
  return
}

// -----

func.func @mask_no_kv_len(%s: tensor<16x16xf32>, %i: index) {
  // expected-error @+1 {{needs exactly one kv_len: an attribute or an operand}}
  %m = flash.mask %s[%i, %i] : tensor<16x16xf32>
  return
}

// -----

func.func @recompute_probs_f32(%s: tensor<16x32xf16>, %l: tensor<16xf32>) {
  // expected-error @+1 {{score tile must be f32, got 'f16'}}
  %p = flash.recompute_probs %s, %l : tensor<16x32xf16>, tensor<16xf32>
  return
}

// -----

func.func @mask_two_causal_offsets(%s: tensor<16x16xf32>, %i: index) {
  // expected-error @+1 {{needs at most one causal_offset: an attribute or an operand}}
  %m = flash.mask %s[%i, %i] kv_len(%i) causal_offset(%i) {causal_offset = 0 : i64} : tensor<16x16xf32>
  return
}

// -----

func.func @recompute_probs_rank(%s: tensor<32xf32>, %l: tensor<16xf32>) {
  // expected-error @+1 {{score tile must have rank 2, got 1}}
  %p = flash.recompute_probs %s, %l : tensor<32xf32>, tensor<16xf32>
  return
}

// -----

func.func @mask_rows_per_head(%s: tensor<16x16xf32>, %i: index) {
  // expected-error @+1 {{rows_per_head must be positive, got 0}}
  %m = flash.mask %s[%i, %i] kv_len(%i) {rows_per_head = 0 : i64} : tensor<16x16xf32>
  return
}

// -----

func.func @recompute_probs_lse(%s: tensor<16x32xf32>, %l: tensor<32xf32>) {
  // expected-error @+1 {{lse must have 16 rows (one per tile row), got 32}}
  %p = flash.recompute_probs %s, %l : tensor<16x32xf32>, tensor<32xf32>
  return
}

// -----

func.func @load_paged_tile_cache_rank(%c: tensor<16x4x64xf32>, %bt: tensor<2x8xi32>, %i: index) {
  // expected-error @+1 {{cache must be a rank-4 tensor (P×S×H×D), got rank 3}}
  %t = flash.load_paged_tile %c, %bt[%i, %i, %i], %i : tensor<16x4x64xf32>, tensor<2x8xi32> -> tensor<8x64xf32>
  return
}

// -----

func.func @score_grad_f32(%p: tensor<16x32xbf16>, %d: tensor<16xf32>) {
  // expected-error @+1 {{probabilities must be f32, got 'bf16'}}
  %ds = flash.score_grad %p, %p, %d : tensor<16x32xbf16>, tensor<16xf32>
  return
}

// -----

func.func @load_paged_tile_table(%c: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi64>, %i: index) {
  // expected-error @+1 {{block_table must be a rank-2 tensor of i32 (B×M), got 'tensor<2x8xi64>'}}
  %t = flash.load_paged_tile %c, %bt[%i, %i, %i], %i : tensor<16x4x2x64xf32>, tensor<2x8xi64> -> tensor<8x64xf32>
  return
}

// -----

func.func @score_grad_delta(%p: tensor<16x32xf32>, %d: tensor<32xf32>) {
  // expected-error @+1 {{delta must have 16 rows (one per tile row), got 32}}
  %ds = flash.score_grad %p, %p, %d : tensor<16x32xf32>, tensor<32xf32>
  return
}

// -----

func.func @load_paged_tile_rank(%c: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %i: index) {
  // expected-error @+1 {{tile must have rank 2, got 1}}
  %t = flash.load_paged_tile %c, %bt[%i, %i, %i], %i : tensor<16x4x2x64xf32>, tensor<2x8xi32> -> tensor<8xf32>
  return
}

// -----

func.func @score_grad_types(%p: tensor<16x32xf32>, %q: tensor<16x16xf32>, %d: tensor<16xf32>) {
  // expected-error @+1 {{failed to verify that all of {probs, grad_probs, grad_scores} have same type}}
  %ds = "flash.score_grad"(%p, %q, %d) : (tensor<16x32xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<16x32xf32>
  return
}

// -----

func.func @load_paged_tile_element(%c: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %i: index) {
  // expected-error @+1 {{tile element type 'f16' must match cache element type 'f32'}}
  %t = flash.load_paged_tile %c, %bt[%i, %i, %i], %i : tensor<16x4x2x64xf32>, tensor<2x8xi32> -> tensor<8x64xf16>
  return
}

// -----

func.func @accumulate_product_acc(%acc: tensor<16x8xf16>, %a: tensor<16x32xf32>, %b: tensor<32x8xf16>) {
  // expected-error @+1 {{accumulator must be f32, got 'f16'}}
  %r = flash.accumulate_product %acc, %a, %b : tensor<16x8xf16>, tensor<16x32xf32>, tensor<32x8xf16>
  return
}

// -----

func.func @load_paged_tile_width(%c: tensor<16x4x2x64xf32>, %bt: tensor<2x8xi32>, %i: index) {
  // expected-error @+1 {{tile width 32 must match the cache head dimension 64}}
  %t = flash.load_paged_tile %c, %bt[%i, %i, %i], %i : tensor<16x4x2x64xf32>, tensor<2x8xi32> -> tensor<8x32xf32>
  return
}

// -----

func.func @accumulate_product_lhs(%acc: tensor<16x8xf32>, %a: tensor<16x32xf16>, %b: tensor<32x8xf16>) {
  // expected-error @+1 {{lhs tile must be f32, got 'f16'}}
  %r = flash.accumulate_product %acc, %a, %b : tensor<16x8xf32>, tensor<16x32xf16>, tensor<32x8xf16>
  return
}

// -----

func.func @merge_splits_rank(%po: tensor<4x16xf32>, %pl: tensor<4x16xf32>, %n: index) {
  // expected-error @+1 {{partial_out must have rank 3, got 2}}
  %o, %l = flash.merge_splits %po, %pl, %n : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<16x64xf32>, tensor<16xf32>
  return
}

// -----

func.func @accumulate_product_rhs_rank(%acc: tensor<16x8xf32>, %a: tensor<16x32xf32>, %b: tensor<32xf16>) {
  // expected-error @+1 {{rhs tile must have rank 2, got 1}}
  %r = flash.accumulate_product %acc, %a, %b : tensor<16x8xf32>, tensor<16x32xf32>, tensor<32xf16>
  return
}

// -----

func.func @merge_splits_f32(%po: tensor<4x16x64xf16>, %pl: tensor<4x16xf32>, %n: index) {
  // expected-error @+1 {{partial_out must be f32, got 'f16'}}
  %o, %l = flash.merge_splits %po, %pl, %n : tensor<4x16x64xf16>, tensor<4x16xf32> -> tensor<16x64xf32>, tensor<16xf32>
  return
}

// -----

func.func @accumulate_product_rhs_element(%acc: tensor<16x8xf32>, %a: tensor<16x32xf32>, %b: tensor<32x8xi8>) {
  // expected-error @+1 {{rhs tile element type must be f32, f16 or bf16, got 'i8'}}
  %r = flash.accumulate_product %acc, %a, %b : tensor<16x8xf32>, tensor<16x32xf32>, tensor<32x8xi8>
  return
}

// -----

func.func @merge_splits_lse_parts(%po: tensor<4x16x64xf32>, %pl: tensor<4x8xf32>, %n: index) {
  // expected-error @+1 {{partial_lse shape 4x8 must be splits×rows = 4x16}}
  %o, %l = flash.merge_splits %po, %pl, %n : tensor<4x16x64xf32>, tensor<4x8xf32> -> tensor<16x64xf32>, tensor<16xf32>
  return
}

// -----

func.func @accumulate_product_shapes(%acc: tensor<16x8xf32>, %a: tensor<16x32xf32>, %b: tensor<16x8xf16>) {
  // expected-error @+1 {{shapes do not compose: accumulator 16x8 += lhs 16x32 · rhs 16x8}}
  %r = flash.accumulate_product %acc, %a, %b : tensor<16x8xf32>, tensor<16x32xf32>, tensor<16x8xf16>
  return
}

// -----

func.func @merge_splits_none(%po: tensor<0x16x64xf32>, %pl: tensor<0x16xf32>, %n: index) {
  // expected-error @+1 {{partial_out must hold at least one split, got 0}}
  %o, %l = flash.merge_splits %po, %pl, %n : tensor<0x16x64xf32>, tensor<0x16xf32> -> tensor<16x64xf32>, tensor<16xf32>
  return
}

// -----

func.func @accumulate_product_transposed_shapes(%acc: tensor<16x8xf32>, %a: tensor<16x32xf32>, %b: tensor<16x8xf16>) {
  // expected-error @+1 {{shapes do not compose: accumulator 16x8 += lhsᵀ 16x32 · rhs 16x8}}
  %r = flash.accumulate_product %acc, %a, %b {transpose_lhs} : tensor<16x8xf32>, tensor<16x32xf32>, tensor<16x8xf16>
  return
}

// -----

func.func @merge_splits_output(%po: tensor<4x16x64xf32>, %pl: tensor<4x16xf32>, %n: index) {
  // expected-error @+1 {{output shape 16x32 must be rows×Dv = 16x64}}
  %o, %l = flash.merge_splits %po, %pl, %n : tensor<4x16x64xf32>, tensor<4x16xf32> -> tensor<16x32xf32>, tensor<16xf32>
  return
}

// -----

func.func @finalize_grad_acc(%acc: tensor<16x8xbf16>) {
  // expected-error @+1 {{accumulator must be f32, got 'bf16'}}
  %r = flash.finalize_grad %acc {scale = 1.0 : f32} : tensor<16x8xbf16> -> tensor<16x8xbf16>
  return
}

// -----

func.func @merge_splits_output_type(%po: tensor<4x16x64xf32>, %pl: tensor<4x16xf32>, %n: index) {
  // expected-error @+1 {{output element type must be f32, f16 or bf16, got 'i8'}}
  %o, %l = flash.merge_splits %po, %pl, %n : tensor<4x16x64xf32>, tensor<4x16xf32> -> tensor<16x64xi8>, tensor<16xf32>
  return
}

// -----

func.func @finalize_grad_shape(%acc: tensor<16x8xf32>) {
  // expected-error @+1 {{result tile shape 8x8 must match accumulator shape 16x8}}
  %r = flash.finalize_grad %acc {scale = 1.0 : f32} : tensor<16x8xf32> -> tensor<8x8xbf16>
  return
}

// -----

func.func @finalize_grad_element(%acc: tensor<16x8xf32>) {
  // expected-error @+1 {{result tile element type must be f32, f16 or bf16, got 'i16'}}
  %r = flash.finalize_grad %acc {scale = 1.0 : f32} : tensor<16x8xf32> -> tensor<16x8xi16>
  return
}

// -----

func.func @finalize_grad_scale(%acc: tensor<16x8xf32>) {
  // expected-error @+1 {{scale must be finite}}
  %r = flash.finalize_grad %acc {scale = 0x7F800000 : f32} : tensor<16x8xf32> -> tensor<16x8xf16>
  return
}

// -----

func.func @merge_splits_lse(%po: tensor<4x16x64xf32>, %pl: tensor<4x16xf32>, %n: index) {
  // expected-error @+1 {{lse must have 16 rows (one per tile row), got 8}}
  %o, %l = flash.merge_splits %po, %pl, %n : tensor<4x16x64xf32>, tensor<4x16xf32> -> tensor<16x64xf32>, tensor<8xf32>
  return
}
