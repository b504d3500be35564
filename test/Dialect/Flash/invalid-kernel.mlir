// RUN: flash-opt %s -split-input-file -allow-unregistered-dialect -verify-diagnostics

// One case per diagnostic of the kernel descriptor #flash.kernel and the
// sm_90a form #flash.sm90_form (the contract flash-tile,
// flash-select-kernel-form and flash-lower-to-nvgpu share).

func.func @form_auto() {
  // expected-error @+1 {{#flash.sm90_form holds chosen forms, not 'auto'}}
  "test.op"() {d = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = auto, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>} : () -> ()
  return
}

// -----

func.func @form_q_buffers() {
  // expected-error @+1 {{q_buffers must be 1 or 2, got 3}}
  "test.op"() {d = #flash.sm90_form<persistent = true, q_buffers = 3, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy_late, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>} : () -> ()
  return
}

// -----

func.func @form_q_buffers_not_persistent() {
  // expected-error @+1 {{q_buffers = 2 needs a persistent grid}}
  "test.op"() {d = #flash.sm90_form<persistent = false, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy_late, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>} : () -> ()
  return
}

// -----

func.func @form_blocks_per_sm() {
  // expected-error @+1 {{blocks_per_sm must be 1 or 2, got 3}}
  "test.op"() {d = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 3, ping_pong = true, rescale = lazy_late, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>} : () -> ()
  return
}

// -----

func.func @form_kv_ring() {
  // expected-error @+1 {{output_staging = kv_ring needs a persistent grid with one Q buffer}}
  "test.op"() {d = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = kv_ring, blocks_per_sm = 1, ping_pong = true, rescale = lazy_late, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>} : () -> ()
  return
}

// -----

func.func @form_group_bytes() {
  // expected-error @+1 {{tile_group_bytes must be positive exactly when tile_order = grouped, got 0}}
  "test.op"() {d = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy_late, first_tile_mask = always, tile_order = grouped, tile_group_bytes = 0, store_wait = deferred, kv_range = block>} : () -> ()
  return
}

// -----

func.func @form_deferred() {
  // expected-error @+1 {{store_wait = deferred needs a persistent grid}}
  "test.op"() {d = #flash.sm90_form<persistent = false, q_buffers = 1, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy_late, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>} : () -> ()
  return
}

// -----

func.func @kernel_element_type() {
  // expected-error @+1 {{element_type must be f32, f16 or bf16, got 'i8'}}
  "test.op"() {d = #flash.kernel<kind = forward, element_type = i8, batch = 1, q_heads = 2, kv_heads = 1, seq_q = 512, seq_kv = 512, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>>} : () -> ()
  return
}

// -----

func.func @kernel_heads() {
  // expected-error @+1 {{kv_heads (3) must divide q_heads (2)}}
  "test.op"() {d = #flash.kernel<kind = forward, element_type = bf16, batch = 1, q_heads = 2, kv_heads = 3, seq_q = 512, seq_kv = 512, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>>} : () -> ()
  return
}

// -----

func.func @kernel_scale() {
  // expected-error @+1 {{scale must be a finite, non-zero f32}}
  "test.op"() {d = #flash.kernel<kind = forward, element_type = bf16, batch = 1, q_heads = 2, kv_heads = 1, seq_q = 512, seq_kv = 512, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 0.000000e+00 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>>} : () -> ()
  return
}

// -----

func.func @kernel_form_kind() {
  // expected-error @+1 {{form must be a target's form attribute (#flash.sm90_form), got #flash.schedule}}
  "test.op"() {d = #flash.kernel<kind = forward, element_type = bf16, batch = 1, q_heads = 2, kv_heads = 1, seq_q = 512, seq_kv = 512, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>, form = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>>} : () -> ()
  return
}

// -----

func.func @kernel_form_arch() {
  // expected-error @+1 {{flash.sm90_form on a schedule for sm_80}}
  "test.op"() {d = #flash.kernel<kind = forward, element_type = bf16, batch = 1, q_heads = 2, kv_heads = 1, seq_q = 512, seq_kv = 512, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy_late, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>>} : () -> ()
  return
}

// -----

func.func @deterministic_forward() {
  // expected-error @+1 {{deterministic applies to backward kernels only}}
  "test.op"() {d = #flash.kernel<kind = forward, element_type = bf16, batch = 1, q_heads = 8, kv_heads = 2, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, deterministic = true>} : () -> ()
  return
}

// -----

func.func @backward_lse() {
  // expected-error @+1 {{a backward kernel reads LSE; lse must be false}}
  "test.op"() {d = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 8, kv_heads = 2, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = true, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>>} : () -> ()
  return
}

// -----

func.func @paged_no_page_size() {
  // expected-error @+1 {{page_size must be positive for a paged kernel and absent otherwise, got 0}}
  "test.op"() {d = #flash.kernel<kind = paged, element_type = bf16, batch = 1, q_heads = 8, kv_heads = 2, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, max_splits = 4>} : () -> ()
  return
}

// -----

func.func @page_size_forward() {
  // expected-error @+1 {{page_size must be positive for a paged kernel and absent otherwise, got 16}}
  "test.op"() {d = #flash.kernel<kind = forward, element_type = bf16, batch = 1, q_heads = 8, kv_heads = 2, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, page_size = 16>} : () -> ()
  return
}

// -----

func.func @split_no_splits() {
  // expected-error @+1 {{max_splits must be at least 1 for split_kv and paged kernels and absent otherwise, got 0}}
  "test.op"() {d = #flash.kernel<kind = split_kv, element_type = bf16, batch = 1, q_heads = 8, kv_heads = 2, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>>} : () -> ()
  return
}

// -----

func.func @splits_forward() {
  // expected-error @+1 {{max_splits must be at least 1 for split_kv and paged kernels and absent otherwise, got 8}}
  "test.op"() {d = #flash.kernel<kind = forward, element_type = bf16, batch = 1, q_heads = 8, kv_heads = 2, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, max_splits = 8>} : () -> ()
  return
}

// -----

func.func @paged_partial_page() {
  // expected-error @+1 {{seq_kv (4096) of a paged kernel must be a whole number of pages of 3}}
  "test.op"() {d = #flash.kernel<kind = paged, element_type = bf16, batch = 1, q_heads = 8, kv_heads = 2, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, page_size = 3, max_splits = 8>} : () -> ()
  return
}

// -----

func.func @split_max_splits_mismatch() {
  // expected-error @+1 {{max_splits (8) must match the schedule's (132)}}
  "test.op"() {d = #flash.kernel<kind = split_kv, element_type = bf16, batch = 1, q_heads = 8, kv_heads = 2, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 8, max_splits = 132>, max_splits = 8>} : () -> ()
  return
}

// -----

func.func @forward_split_schedule() {
  // expected-error @+1 {{a split-KV schedule (max_splits = 132) on a forward kernel}}
  "test.op"() {d = #flash.kernel<kind = forward, element_type = bf16, batch = 1, q_heads = 8, kv_heads = 2, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 8, max_splits = 132>>} : () -> ()
  return
}
