// RUN: flash-opt %s --flash-test-split-kv="batch=1 kv-heads=8 keys=0,1,128,129,4096,131072 block-kv=128 sms=132 max-splits=132" | FileCheck %s
// RUN: flash-opt %s --flash-test-split-kv="batch=64 kv-heads=8 keys=1024,8192 block-kv=128 sms=132 max-splits=132" | FileCheck %s --check-prefix=FULL
// RUN: flash-opt %s --flash-test-split-kv="batch=1 kv-heads=1 keys=1000 block-kv=16 sms=108 max-splits=5" | FileCheck %s --check-prefix=CAP
// RUN: flash-opt %s --flash-test-split-kv="check=true" | FileCheck %s --check-prefix=CHECK-ALL

// chooseSplitKV (include/flash/Target/SplitKV.h) on integers, as the C++
// runtime calls it. B = 1 with 8 kv-heads: ceil(132 / 8) = 17 splits fill
// the SMs; an empty or one-tile sequence has one split; 129 keys are two
// tiles, so two splits of one tile; 4096 keys (32 tiles) in 16 splits of 2
// (the 17th would be empty); 128k keys (1024 tiles) in 17 splits of 61
// tiles (the last one of 48).
// CHECK: keys=0 tiles=0 splits=1 tiles_per_split=1 keys_per_split=128
// CHECK: keys=1 tiles=1 splits=1 tiles_per_split=1 keys_per_split=128
// CHECK: keys=128 tiles=1 splits=1 tiles_per_split=1 keys_per_split=128
// CHECK: keys=129 tiles=2 splits=2 tiles_per_split=1 keys_per_split=128
// CHECK: keys=4096 tiles=32 splits=16 tiles_per_split=2 keys_per_split=256
// CHECK: keys=131072 tiles=1024 splits=17 tiles_per_split=61 keys_per_split=7808

// 64 × 8 = 512 blocks already fill 132 SMs: no split.
// FULL: keys=1024 tiles=8 splits=1 tiles_per_split=8 keys_per_split=1024
// FULL: keys=8192 tiles=64 splits=1 tiles_per_split=64 keys_per_split=8192

// The workspace's capacity bounds the count: 63 tiles in 5 splits of 13.
// CAP: keys=1000 tiles=63 splits=5 tiles_per_split=13 keys_per_split=208

// The invariants over a grid of batches, heads, lengths, tile widths, SM
// counts and capacities (1 <= splits <= max_splits, every tile in exactly one
// split in order, no split without a tile, one split at capacity 1 or when
// the batch fills the SMs).
// CHECK-ALL: flash-test-split-kv: {{[0-9]+}} cases hold
