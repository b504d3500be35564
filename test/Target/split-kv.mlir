// RUN: flash-opt %s --flash-test-split-kv="batch=1 kv-heads=8 keys=0,1,128,129,4096,131072 block-kv=128 sms=132 max-splits=132" | FileCheck %s
// RUN: flash-opt %s --flash-test-split-kv="batch=64 kv-heads=8 keys=1024,8192 block-kv=128 sms=132 max-splits=132" | FileCheck %s --check-prefix=FULL
// RUN: flash-opt %s --flash-test-split-kv="batch=1 kv-heads=8 row-tiles=3 keys=131072 block-kv=128 sms=132 max-splits=132" | FileCheck %s --check-prefix=ROWS
// RUN: flash-opt %s --flash-test-split-kv="batch=1 kv-heads=1 keys=1000 block-kv=16 sms=108 max-splits=5" | FileCheck %s --check-prefix=CAP
// RUN: flash-opt %s --flash-test-split-kv="batch=8 kv-heads=8 keys=32768 block-kv=64 sms=132 max-splits=256" | FileCheck %s --check-prefix=WAVE
// RUN: flash-opt %s --flash-test-split-kv="batch=128 kv-heads=1 keys=2048 block-kv=64 sms=132 max-splits=256" | FileCheck %s --check-prefix=WHOLE
// RUN: flash-opt %s --flash-test-split-kv="batch=124 kv-heads=1 keys=2048 block-kv=64 sms=132 max-splits=256" | FileCheck %s --check-prefix=WHOLE124
// RUN: flash-opt %s --flash-test-split-kv="batch=123 kv-heads=1 keys=2048 block-kv=64 sms=132 max-splits=256" | FileCheck %s --check-prefix=CUT123
// RUN: flash-opt %s --flash-test-split-kv="batch=8 kv-heads=8 keys=32768 block-kv=64 sms=132 max-splits=256 stages=3" | FileCheck %s --check-prefix=ONE
// RUN: flash-opt %s --flash-test-split-kv="batch=1 kv-heads=8 keys=8192,131072 block-kv=64 sms=132 max-splits=128 stages=6" | FileCheck %s --check-prefix=ONE8
// RUN: flash-opt %s --flash-test-split-kv="batch=1 kv-heads=8 keys=8192 block-kv=64 sms=132 max-splits=128 stages=6 row-bytes=128" | FileCheck %s --check-prefix=TWO64
// RUN: flash-opt %s --flash-test-split-kv="batch=66 kv-heads=1 keys=8192 block-kv=64 sms=132 max-splits=128 stages=3" | FileCheck %s --check-prefix=ONE66
// RUN: flash-opt %s --flash-test-split-kv="batch=67 kv-heads=1 keys=8192 block-kv=64 sms=132 max-splits=128 stages=3" | FileCheck %s --check-prefix=ONE67
// RUN: flash-opt %s --flash-test-split-kv="batch=8 kv-heads=8 keys=32768 block-kv=64 sms=132 max-splits=256 stages=2 row-bytes=512 two-blocks-fit=false" | FileCheck %s --check-prefix=NOFIT
// RUN: flash-opt %s --flash-test-split-kv="batch=8 kv-heads=8 keys=32768 block-kv=64 sms=132 max-splits=256 stages=2 row-bytes=512" | FileCheck %s --check-prefix=FIT512
// RUN: flash-opt %s --flash-test-split-kv="batch=8 kv-heads=8 keys=32768 block-kv=64 sms=132 max-splits=256 blocks-per-sm=1" | FileCheck %s --check-prefix=NOFIT
// RUN: flash-opt %s --flash-test-split-kv="check=true" | FileCheck %s --check-prefix=CHECK-ALL
// RUN: flash-opt %s --flash-test-split-kv="batch=1 kv-heads=1 keys=0,64,128,256,8192,131072 block-kv=64 sms=132 max-splits=128 stages=3" | FileCheck %s --check-prefix=GRID

// splitKVCount (include/flash/Target/SplitKV.h) on integers: the one rule
// the GPU decode kernels evaluate on device from seq_lens, flash-tile's
// split-KV form builds on index values, and the IO model uses.
//   wanted   = floor(n · SMs / work units)       (work units = B · Hkv · row tiles;
//                                                n = 1 from 3 stages and 256-byte
//                                                rows up, else 2)
//   byLength = max(floor(tiles / 2), 1)
//   parts    = clamp(min(wanted, byLength), 1, max_splits),
//              1 when 16 · work units >= 15 · SMs (no merge)
//   splits   = ceil(tiles / ceil(tiles / parts))
// B = 1 with 8 kv-heads on 132 SMs: wanted = 264 / 8 = 33. An empty
// sequence has no split; one tile, or two (two parts would have fewer than
// 2 tiles each), one split; 4096 keys (32 tiles) in 16 splits of 2 (4 tiles
// a part until the thirty-third session: 8 splits of 4); 128k keys (1024
// tiles): 33 parts of ceil(1024 / 33) = 32 tiles, which is 32 splits.
// CHECK: keys=0 tiles=0 work_units=8 splits=0 tiles_per_split=1
// CHECK: keys=1 tiles=1 work_units=8 splits=1 tiles_per_split=1
// CHECK: keys=128 tiles=1 work_units=8 splits=1 tiles_per_split=1
// CHECK: keys=129 tiles=2 work_units=8 splits=1 tiles_per_split=2
// CHECK: keys=4096 tiles=32 work_units=8 splits=16 tiles_per_split=2
// CHECK: keys=131072 tiles=1024 work_units=8 splits=32 tiles_per_split=32

// 64 × 8 = 512 blocks already fill 132 SMs (2 per SM wanted): no split.
// FULL: keys=1024 tiles=8 work_units=512 splits=1 tiles_per_split=8
// FULL: keys=8192 tiles=64 work_units=512 splits=1 tiles_per_split=64

// Three row tiles per kv-head (a large GQA group): 24 blocks a part,
// wanted = 264 / 24 = 11: 11 splits of ceil(1024 / 11) = 94 tiles.
// ROWS: keys=131072 tiles=1024 work_units=24 splits=11 tiles_per_split=94

// One wave: B = 8 with 8 kv-heads (64 work units) wants floor(264 / 64) = 4
// parts, 256 blocks for the 264 slots of 132 SMs (the ceiling, 5, made 320
// blocks: a second wave of 56).
// WAVE: keys=32768 tiles=512 work_units=64 splits=4 tiles_per_split=128

// Work units that fill 15/16 of the SMs or more are not cut (wanted = 2
// would make two parts and a merge): GQA 8/1 at B = 128 (128 work units on
// 132 SMs) and at B = 124 (16 · 124 = 1984 >= 15 · 132 = 1980) one part of
// 32 tiles; B = 123 (1968 < 1980) two parts of 16.
// WHOLE: keys=2048 tiles=32 work_units=128 splits=1 tiles_per_split=32
// WHOLE124: keys=2048 tiles=32 work_units=124 splits=1 tiles_per_split=32
// CUT123: keys=2048 tiles=32 work_units=123 splits=2 tiles_per_split=16

// A kernel of 3 stages or more and K rows of 256 bytes or more aims at one
// block an SM (splitKVBlocksPerSM; the runs above are of 2 stages, the
// default, and 256-byte rows): 64 work units want
// floor(132 / 64) = 2 parts, 128 blocks; 8 work units 16 parts (8192 keys:
// 128 tiles in 16 parts of 8; 128k keys: 16 parts of 128 tiles); 66 work
// units 2 parts, 67 one.
// ONE: keys=32768 tiles=512 work_units=64 splits=2 tiles_per_split=256
// ONE8: keys=8192 tiles=128 work_units=8 splits=16 tiles_per_split=8
// ONE8: keys=131072 tiles=2048 work_units=8 splits=16 tiles_per_split=128
// ONE66: keys=8192 tiles=128 work_units=66 splits=2 tiles_per_split=64
// ONE67: keys=8192 tiles=128 work_units=67 splits=1 tiles_per_split=128
// 128-byte rows (D = 64) aim at two blocks an SM at any stages: 33 parts
// wanted, 128 tiles in 32 splits of 4.
// TWO64: keys=8192 tiles=128 work_units=8 splits=32 tiles_per_split=4

// A kernel two of whose blocks do not fit an SM (D = 256's 2 stages of
// 512-byte rows, 136 KiB) aims at one block an SM whatever its stages: 64
// work units want floor(132 / 64) = 2 parts, as 3 stages would (ONE), not
// the 4 parts of two blocks an SM (FIT512, as WAVE), which make twice the
// blocks that are resident at once. `blocks-per-sm=1` gives the count the
// same way (flash-kernel-forms' `blocks_per_sm` of a plan).
// NOFIT: keys=32768 tiles=512 work_units=64 splits=2 tiles_per_split=256
// FIT512: keys=32768 tiles=512 work_units=64 splits=4 tiles_per_split=128

// The workspace's capacity bounds the count: 63 tiles in 5 splits of 13.
// CAP: keys=1000 tiles=63 work_units=1 splits=5 tiles_per_split=13

// The invariants over a grid of batches, heads, row tiles, lengths, tile
// widths, SM counts, capacities and stages (2 and 3 at 256-byte rows: two
// blocks an SM and one; 2 where two blocks do not fit: one) (0 splits only for an empty sequence,
// else 1 <= splits <= min(max_splits, max(wanted, 1)), one split when
// 16 · work units >= 15 · SMs, at least 2 tiles a part when cut, every tile
// in exactly one split in order, no split without a tile).
// CHECK-ALL: flash-test-split-kv: 112320 cases hold

// splitKVGridParts, the launch plan's grid x, for a cache whose capacity is
// the printed keys (sm_90a's D = 128 plans: one block an SM, max_splits 128;
// GQA 8/1 B = 1, one work unit): no more blocks than a sequence that long is
// cut into, max(floor(tiles / 2), 1), under splitKVMaxSplits' 128. Until the
// fifty-seventh session the grid was 128 at every capacity (an 8k cache: 64
// parts, 64 blocks that only exit).
// GRID: keys=0 tiles=0 work_units=1 splits=0 tiles_per_split=1 grid=1
// GRID: keys=64 tiles=1 work_units=1 splits=1 tiles_per_split=1 grid=1
// GRID: keys=128 tiles=2 work_units=1 splits=1 tiles_per_split=2 grid=1
// GRID: keys=256 tiles=4 work_units=1 splits=2 tiles_per_split=2 grid=2
// GRID: keys=8192 tiles=128 work_units=1 splits=64 tiles_per_split=2 grid=64
// GRID: keys=131072 tiles=2048 work_units=1 splits=128 tiles_per_split=16 grid=128
