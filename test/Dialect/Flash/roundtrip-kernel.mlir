// RUN: flash-opt %s -allow-unregistered-dialect | flash-opt -allow-unregistered-dialect | FileCheck %s

// The kernel descriptor and the sm_90a form print and parse back, with and
// without a form (sm_80 kernels have none).

// CHECK-LABEL: func.func @descriptors
// CHECK: "test.op"() {d = #flash.kernel<kind = forward, element_type = bf16, batch = 1, q_heads = 2, kv_heads = 1, seq_q = 512, seq_kv = 512, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = <arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>>}
// CHECK: "test.op"() {d = #flash.kernel<kind = forward, element_type = bf16, batch = 1, q_heads = 2, kv_heads = 1, seq_q = 512, seq_kv = 512, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = <arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>, form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy_late, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>>}
func.func @descriptors() {
  "test.op"() {d = #flash.kernel<kind = forward, element_type = bf16, batch = 1, q_heads = 2, kv_heads = 1, seq_q = 512, seq_kv = 512, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>>} : () -> ()
  "test.op"() {d = #flash.kernel<kind = forward, element_type = bf16, batch = 1, q_heads = 2, kv_heads = 1, seq_q = 512, seq_kv = 512, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>, form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy_late, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>>} : () -> ()
  return
}

// The other kinds: backward (deterministic), split_kv and paged (max_splits,
// page_size). Parameters at their defaults are not printed.
// CHECK-LABEL: func.func @kinds
// CHECK: #flash.kernel<kind = backward, element_type = bf16, {{.*}}, schedule = <arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, deterministic = true>
// CHECK: #flash.kernel<kind = backward, element_type = bf16, {{.*}}, schedule = <arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>>
// CHECK: #flash.kernel<kind = split_kv, element_type = bf16, {{.*}}, schedule = <arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, max_splits = 64>
// CHECK: #flash.kernel<kind = paged, element_type = bf16, {{.*}}, schedule = <arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, page_size = 16, max_splits = 64>
func.func @kinds() {
  "test.op"() {d = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 8, kv_heads = 2, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, deterministic = true>} : () -> ()
  "test.op"() {d = #flash.kernel<kind = backward, element_type = bf16, batch = 1, q_heads = 8, kv_heads = 2, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, deterministic = false>} : () -> ()
  "test.op"() {d = #flash.kernel<kind = split_kv, element_type = bf16, batch = 1, q_heads = 8, kv_heads = 2, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, max_splits = 64>} : () -> ()
  "test.op"() {d = #flash.kernel<kind = paged, element_type = bf16, batch = 1, q_heads = 8, kv_heads = 2, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, page_size = 16, max_splits = 64>} : () -> ()
  return
}
