// RUN: flash-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of flash.attention and its L1 tile ops.

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
  // expected-error @+1 {{source must be a rank-4 tensor (B×H×N×D), got rank 2}}
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
