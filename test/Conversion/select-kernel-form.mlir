// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form | FileCheck %s
// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=yes" | FileCheck %s --check-prefix=PERSISTENT
// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=no ping-pong=no rescale=eager first-tile-mask=always tile-order=head store-wait=immediate kv-range=block" | FileCheck %s --check-prefix=PLAIN
// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form --flash-select-kernel-form="rescale=lazy" | FileCheck %s
// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="rescale=lazy" --flash-select-kernel-form="overwrite rescale=eager" | FileCheck %s --check-prefix=OVERWRITE

// flash-select-kernel-form: the sm_90a policy (SM90/FormPolicy.cpp) pins each
// `auto` choice per kernel, as measured on the H200 (docs/benchmarks.md). The
// form goes into the #flash.kernel descriptor that flash-tile attached; the
// lowering reads it from there. A descriptor that has a form keeps it (the
// fourth RUN gives the same forms), unless `overwrite` is set.

// -----

// causal D=64: eager rescale, branch mask, deferred store wait; persistent with two Q buffers (D <= 128); ping-pong (two consumers); by head (4 Q tiles per head).
// CHECK-LABEL: func.func @d64_causal_n512
// CHECK: form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = eager, first_tile_mask = branch, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>>
// PERSISTENT-LABEL: func.func @d64_causal_n512
// PERSISTENT: form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = eager, first_tile_mask = branch, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>>
// PLAIN-LABEL: func.func @d64_causal_n512
// PLAIN: form = #flash.sm90_form<persistent = false, q_buffers = 1, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = false, rescale = eager, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = block>>
// OVERWRITE-LABEL: func.func @d64_causal_n512
// OVERWRITE: form = #flash.sm90_form<{{.*}}rescale = eager,
func.func @d64_causal_n512(%q: tensor<1x2x512x64xbf16>, %k: tensor<1x2x512x64xbf16>, %v: tensor<1x2x512x64xbf16>) -> tensor<1x2x512x64xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>} : tensor<1x2x512x64xbf16>, tensor<1x2x512x64xbf16>, tensor<1x2x512x64xbf16> -> tensor<1x2x512x64xbf16>
  return %o : tensor<1x2x512x64xbf16>
}

// -----

// non-causal D=64: lazy rescale, branch mask, immediate store wait (deferring measured slower here).
// CHECK-LABEL: func.func @d64_n512
// CHECK: form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy, first_tile_mask = branch, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = block>>
// PERSISTENT-LABEL: func.func @d64_n512
// PERSISTENT: form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy, first_tile_mask = branch, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = block>>
// PLAIN-LABEL: func.func @d64_n512
// PLAIN: form = #flash.sm90_form<persistent = false, q_buffers = 1, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = false, rescale = eager, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = block>>
// OVERWRITE-LABEL: func.func @d64_n512
// OVERWRITE: form = #flash.sm90_form<{{.*}}rescale = eager,
func.func @d64_n512(%q: tensor<1x2x512x64xbf16>, %k: tensor<1x2x512x64xbf16>, %v: tensor<1x2x512x64xbf16>) -> tensor<1x2x512x64xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>} : tensor<1x2x512x64xbf16>, tensor<1x2x512x64xbf16>, tensor<1x2x512x64xbf16> -> tensor<1x2x512x64xbf16>
  return %o : tensor<1x2x512x64xbf16>
}

// -----

// causal D=64 at 2048 with 192-row tiles: 11 Q tiles per head, fewer than 16: by head.
// CHECK-LABEL: func.func @d64_causal_n2048
// CHECK: form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = eager, first_tile_mask = branch, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>>
// PERSISTENT-LABEL: func.func @d64_causal_n2048
// PERSISTENT: form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = eager, first_tile_mask = branch, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>>
// PLAIN-LABEL: func.func @d64_causal_n2048
// PLAIN: form = #flash.sm90_form<persistent = false, q_buffers = 1, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = false, rescale = eager, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = block>>
// OVERWRITE-LABEL: func.func @d64_causal_n2048
// OVERWRITE: form = #flash.sm90_form<{{.*}}rescale = eager,
func.func @d64_causal_n2048(%q: tensor<1x2x2048x64xbf16>, %k: tensor<1x2x2048x64xbf16>, %v: tensor<1x2x2048x64xbf16>) -> tensor<1x2x2048x64xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 192, block_kv = 128, stages = 2, warps = 16>} : tensor<1x2x2048x64xbf16>, tensor<1x2x2048x64xbf16>, tensor<1x2x2048x64xbf16> -> tensor<1x2x2048x64xbf16>
  return %o : tensor<1x2x2048x64xbf16>
}

// -----

// causal D=64 at 4096: 22 Q tiles per head: grouped, 16 MiB of K/V per group.
// CHECK-LABEL: func.func @d64_causal_n4096
// CHECK: form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = eager, first_tile_mask = branch, tile_order = grouped, tile_group_bytes = 16777216, store_wait = deferred, kv_range = block>>
// PERSISTENT-LABEL: func.func @d64_causal_n4096
// PERSISTENT: form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = eager, first_tile_mask = branch, tile_order = grouped, tile_group_bytes = 16777216, store_wait = deferred, kv_range = block>>
// PLAIN-LABEL: func.func @d64_causal_n4096
// PLAIN: form = #flash.sm90_form<persistent = false, q_buffers = 1, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = false, rescale = eager, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = block>>
// OVERWRITE-LABEL: func.func @d64_causal_n4096
// OVERWRITE: form = #flash.sm90_form<{{.*}}rescale = eager,
func.func @d64_causal_n4096(%q: tensor<1x2x4096x64xbf16>, %k: tensor<1x2x4096x64xbf16>, %v: tensor<1x2x4096x64xbf16>) -> tensor<1x2x4096x64xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 192, block_kv = 128, stages = 2, warps = 16>} : tensor<1x2x4096x64xbf16>, tensor<1x2x4096x64xbf16>, tensor<1x2x4096x64xbf16> -> tensor<1x2x4096x64xbf16>
  return %o : tensor<1x2x4096x64xbf16>
}

// -----

// one consumer warpgroup (block_q = 64): no ping-pong, two blocks per SM.
// CHECK-LABEL: func.func @d64_one_consumer
// CHECK: form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 2, ping_pong = false, rescale = lazy, first_tile_mask = branch, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = block>>
// PERSISTENT-LABEL: func.func @d64_one_consumer
// PERSISTENT: form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 2, ping_pong = false, rescale = lazy, first_tile_mask = branch, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = block>>
// PLAIN-LABEL: func.func @d64_one_consumer
// PLAIN: form = #flash.sm90_form<persistent = false, q_buffers = 1, output_staging = q_buffer, blocks_per_sm = 2, ping_pong = false, rescale = eager, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = block>>
// OVERWRITE-LABEL: func.func @d64_one_consumer
// OVERWRITE: form = #flash.sm90_form<{{.*}}rescale = eager,
func.func @d64_one_consumer(%q: tensor<1x2x1024x64xbf16>, %k: tensor<1x2x1024x64xbf16>, %v: tensor<1x2x1024x64xbf16>) -> tensor<1x2x1024x64xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 8>} : tensor<1x2x1024x64xbf16>, tensor<1x2x1024x64xbf16>, tensor<1x2x1024x64xbf16> -> tensor<1x2x1024x64xbf16>
  return %o : tensor<1x2x1024x64xbf16>
}

// -----

// causal D=128: lazy-late rescale, branch mask, by head even with 16+ Q tiles.
// CHECK-LABEL: func.func @d128_causal
// CHECK: form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy_late, first_tile_mask = branch, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>>
// PERSISTENT-LABEL: func.func @d128_causal
// PERSISTENT: form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy_late, first_tile_mask = branch, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>>
// PLAIN-LABEL: func.func @d128_causal
// PLAIN: form = #flash.sm90_form<persistent = false, q_buffers = 1, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = false, rescale = eager, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = block>>
// OVERWRITE-LABEL: func.func @d128_causal
// OVERWRITE: form = #flash.sm90_form<{{.*}}rescale = eager,
func.func @d128_causal(%q: tensor<1x2x1024x128xbf16>, %k: tensor<1x2x1024x128xbf16>, %v: tensor<1x2x1024x128xbf16>) -> tensor<1x2x1024x128xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>} : tensor<1x2x1024x128xbf16>, tensor<1x2x1024x128xbf16>, tensor<1x2x1024x128xbf16> -> tensor<1x2x1024x128xbf16>
  return %o : tensor<1x2x1024x128xbf16>
}

// -----

// causal D=128 at 8192 (64 Q tiles): still by head (grouped measured -5 to +2%).
// CHECK-LABEL: func.func @d128_causal_n8192
// CHECK: form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy_late, first_tile_mask = branch, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>>
// PERSISTENT-LABEL: func.func @d128_causal_n8192
// PERSISTENT: form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy_late, first_tile_mask = branch, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>>
// PLAIN-LABEL: func.func @d128_causal_n8192
// PLAIN: form = #flash.sm90_form<persistent = false, q_buffers = 1, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = false, rescale = eager, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = block>>
// OVERWRITE-LABEL: func.func @d128_causal_n8192
// OVERWRITE: form = #flash.sm90_form<{{.*}}rescale = eager,
func.func @d128_causal_n8192(%q: tensor<1x2x8192x128xbf16>, %k: tensor<1x2x8192x128xbf16>, %v: tensor<1x2x8192x128xbf16>) -> tensor<1x2x8192x128xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>} : tensor<1x2x8192x128xbf16>, tensor<1x2x8192x128xbf16>, tensor<1x2x8192x128xbf16> -> tensor<1x2x8192x128xbf16>
  return %o : tensor<1x2x8192x128xbf16>
}

// -----

// non-causal D=128: always-masked first tile, deferred store wait.
// CHECK-LABEL: func.func @d128
// CHECK: form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy_late, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>>
// PERSISTENT-LABEL: func.func @d128
// PERSISTENT: form = #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy_late, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>>
// PLAIN-LABEL: func.func @d128
// PLAIN: form = #flash.sm90_form<persistent = false, q_buffers = 1, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = false, rescale = eager, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = block>>
// OVERWRITE-LABEL: func.func @d128
// OVERWRITE: form = #flash.sm90_form<{{.*}}rescale = eager,
func.func @d128(%q: tensor<1x2x1024x128xbf16>, %k: tensor<1x2x1024x128xbf16>, %v: tensor<1x2x1024x128xbf16>) -> tensor<1x2x1024x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>} : tensor<1x2x1024x128xbf16>, tensor<1x2x1024x128xbf16>, tensor<1x2x1024x128xbf16> -> tensor<1x2x1024x128xbf16>
  return %o : tensor<1x2x1024x128xbf16>
}

// -----

// causal D=256: one tile per block, lazy rescale, per-warpgroup K/V ranges, immediate store wait (no next tile).
// CHECK-LABEL: func.func @d256_causal
// CHECK: form = #flash.sm90_form<persistent = false, q_buffers = 1, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy, first_tile_mask = branch, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = warpgroup>>
// PERSISTENT-LABEL: func.func @d256_causal
// PERSISTENT: form = #flash.sm90_form<persistent = true, q_buffers = 1, output_staging = kv_ring, blocks_per_sm = 1, ping_pong = true, rescale = lazy, first_tile_mask = branch, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>>
// PLAIN-LABEL: func.func @d256_causal
// PLAIN: form = #flash.sm90_form<persistent = false, q_buffers = 1, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = false, rescale = eager, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = block>>
// OVERWRITE-LABEL: func.func @d256_causal
// OVERWRITE: form = #flash.sm90_form<{{.*}}rescale = eager,
func.func @d256_causal(%q: tensor<1x2x1024x256xbf16>, %k: tensor<1x2x1024x256xbf16>, %v: tensor<1x2x1024x256xbf16>) -> tensor<1x2x1024x256xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 64, stages = 2, warps = 12>} : tensor<1x2x1024x256xbf16>, tensor<1x2x1024x256xbf16>, tensor<1x2x1024x256xbf16> -> tensor<1x2x1024x256xbf16>
  return %o : tensor<1x2x1024x256xbf16>
}

// -----

// causal D=256 at 2048: 16 Q tiles per head: grouped.
// CHECK-LABEL: func.func @d256_causal_n2048
// CHECK: form = #flash.sm90_form<persistent = false, q_buffers = 1, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy, first_tile_mask = branch, tile_order = grouped, tile_group_bytes = 16777216, store_wait = immediate, kv_range = warpgroup>>
// PERSISTENT-LABEL: func.func @d256_causal_n2048
// PERSISTENT: form = #flash.sm90_form<persistent = true, q_buffers = 1, output_staging = kv_ring, blocks_per_sm = 1, ping_pong = true, rescale = lazy, first_tile_mask = branch, tile_order = grouped, tile_group_bytes = 16777216, store_wait = deferred, kv_range = block>>
// PLAIN-LABEL: func.func @d256_causal_n2048
// PLAIN: form = #flash.sm90_form<persistent = false, q_buffers = 1, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = false, rescale = eager, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = block>>
// OVERWRITE-LABEL: func.func @d256_causal_n2048
// OVERWRITE: form = #flash.sm90_form<{{.*}}rescale = eager,
func.func @d256_causal_n2048(%q: tensor<1x2x2048x256xbf16>, %k: tensor<1x2x2048x256xbf16>, %v: tensor<1x2x2048x256xbf16>) -> tensor<1x2x2048x256xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 64, stages = 2, warps = 12>} : tensor<1x2x2048x256xbf16>, tensor<1x2x2048x256xbf16>, tensor<1x2x2048x256xbf16> -> tensor<1x2x2048x256xbf16>
  return %o : tensor<1x2x2048x256xbf16>
}

// -----

// non-causal D=256: one tile per block, lazy, always-masked first tile, block K/V range.
// CHECK-LABEL: func.func @d256
// CHECK: form = #flash.sm90_form<persistent = false, q_buffers = 1, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = true, rescale = lazy, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = block>>
// PERSISTENT-LABEL: func.func @d256
// PERSISTENT: form = #flash.sm90_form<persistent = true, q_buffers = 1, output_staging = kv_ring, blocks_per_sm = 1, ping_pong = true, rescale = lazy, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = deferred, kv_range = block>>
// PLAIN-LABEL: func.func @d256
// PLAIN: form = #flash.sm90_form<persistent = false, q_buffers = 1, output_staging = q_buffer, blocks_per_sm = 1, ping_pong = false, rescale = eager, first_tile_mask = always, tile_order = head, tile_group_bytes = 0, store_wait = immediate, kv_range = block>>
// OVERWRITE-LABEL: func.func @d256
// OVERWRITE: form = #flash.sm90_form<{{.*}}rescale = eager,
func.func @d256(%q: tensor<1x2x1024x256xbf16>, %k: tensor<1x2x1024x256xbf16>, %v: tensor<1x2x1024x256xbf16>) -> tensor<1x2x1024x256xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 80, stages = 2, warps = 12>} : tensor<1x2x1024x256xbf16>, tensor<1x2x1024x256xbf16>, tensor<1x2x1024x256xbf16> -> tensor<1x2x1024x256xbf16>
  return %o : tensor<1x2x1024x256xbf16>
}

