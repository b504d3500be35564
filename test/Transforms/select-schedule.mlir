// RUN: flash-opt %s --flash-select-schedule=arch=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: flash-opt %s --flash-select-schedule=arch=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: flash-opt %s --flash-select-schedule=arch=sm_100a | FileCheck %s --check-prefix=SM100
// RUN: flash-opt %s --flash-select-schedule="arch=sm_80 block-q=7 block-kv=13" | FileCheck %s --check-prefix=OVERRIDE
// RUN: flash-opt %s --flash-select-schedule="arch=sm_90a block-q=64 block-kv=64 stages=3 warps=8 overwrite=true" | FileCheck %s --check-prefix=ALL
// RUN: flash-opt %s --flash-select-schedule="arch=sm_90a split-kv=false" | FileCheck %s --check-prefix=NOSPLIT
// RUN: flash-opt %s --flash-select-schedule="arch=sm_80 max-splits=7 block-kv=16" | FileCheck %s --check-prefix=CAPACITY

// The schedule follows the target model: on sm_80 four warps own 32 rows
// each where the registers allow it (D=64, 128), the f32 accumulator of
// D=256 leaves room for 16 rows per warp and 64-row K/V tiles (two stages of them);
// on sm_90a the Q tile is a multiple of 64 rows per consumer warpgroup plus
// one producer warpgroup, and D=256 takes the widest K/V tile (80) that fits
// two stages; on sm_100a a block holds two 128-row Q tiles (block_q = 256,
// sixteen warps) where O and S of both, 2·(Dv + Bc), fit 512 TMEM columns
// (D = 64 and 128, Bc = 128: K/V read once per 256 rows), else one in six
// warps with O, S and P (Dv + Bc + Bc/2, rounded up to a power of two):
// D = 256 (2·(256 + 64) = 640 columns).

// SM80-LABEL: func.func @d64
// SM80: schedule = #flash.schedule<arch = "sm_80", block_q = 128, block_kv = 64, stages = 2, warps = 4>
// SM90-LABEL: func.func @d64
// SM90: schedule = #flash.schedule<arch = "sm_90a", block_q = 192, block_kv = 128, stages = 2, warps = 16>
// SM100-LABEL: func.func @d64
// SM100: schedule = #flash.schedule<arch = "sm_100a", block_q = 256, block_kv = 128, stages = 3, warps = 16>
// OVERRIDE-LABEL: func.func @d64
// OVERRIDE: schedule = #flash.schedule<arch = "sm_80", block_q = 7, block_kv = 13, stages = 2, warps = 4>
func.func @d64(%q: tensor<4x16x4096x64xbf16>, %k: tensor<4x16x4096x64xbf16>, %v: tensor<4x16x4096x64xbf16>) -> tensor<4x16x4096x64xbf16> {
  %o = flash.attention %q, %k, %v : tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16> -> tensor<4x16x4096x64xbf16>
  return %o : tensor<4x16x4096x64xbf16>
}

// SM80-LABEL: func.func @d128_causal
// SM80: schedule = #flash.schedule<arch = "sm_80", block_q = 128, block_kv = 64, stages = 2, warps = 4>
// SM90-LABEL: func.func @d128_causal
// SM90: schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>
// SM100-LABEL: func.func @d128_causal
// SM100: schedule = #flash.schedule<arch = "sm_100a", block_q = 256, block_kv = 128, stages = 2, warps = 16>
func.func @d128_causal(%q: tensor<2x16x8192x128xbf16>, %k: tensor<2x16x8192x128xbf16>, %v: tensor<2x16x8192x128xbf16>) -> tensor<2x16x8192x128xbf16> {
  %o = flash.attention %q, %k, %v {causal} : tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16> -> tensor<2x16x8192x128xbf16>
  return %o : tensor<2x16x8192x128xbf16>
}

// SM80-LABEL: func.func @d256
// SM80: schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>
// SM90-LABEL: func.func @d256
// SM90: schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 80, stages = 2, warps = 12>
// SM100-LABEL: func.func @d256
// SM100: schedule = #flash.schedule<arch = "sm_100a", block_q = 128, block_kv = 64, stages = 2, warps = 6>
func.func @d256(%q: tensor<2x8x8192x256xf16>, %k: tensor<2x8x8192x256xf16>, %v: tensor<2x8x8192x256xf16>) -> tensor<2x8x8192x256xf16> {
  %o = flash.attention %q, %k, %v : tensor<2x8x8192x256xf16>, tensor<2x8x8192x256xf16>, tensor<2x8x8192x256xf16> -> tensor<2x8x8192x256xf16>
  return %o : tensor<2x8x8192x256xf16>
}

// The sm_90a objective weighs the MMA work (w·D) and the softmax that the
// other consumers do not hide (u/C) against the per-step costs (1/Br + 1/Bc):
// at D=256 128x80 gains little over 128x64 (the @d256 case above, at N=8192,
// keeps it), so at N=512, where 80-wide tiles compute 9% masked work, 128x64
// wins; at D=128, N=8192, three consumers (192x80) win over 128x128 (the
// @d128_causal case above keeps 128x128). sm_80 and sm_100a keep the
// harmonic form.
// SM90-LABEL: func.func @d256_short
// SM90: schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 64, stages = 2, warps = 12>
// SM100-LABEL: func.func @d256_short
// SM100: schedule = #flash.schedule<arch = "sm_100a", block_q = 128, block_kv = 64, stages = 2, warps = 6>
func.func @d256_short(%q: tensor<32x8x512x256xbf16>, %k: tensor<32x8x512x256xbf16>, %v: tensor<32x8x512x256xbf16>) -> tensor<32x8x512x256xbf16> {
  %o = flash.attention %q, %k, %v : tensor<32x8x512x256xbf16>, tensor<32x8x512x256xbf16>, tensor<32x8x512x256xbf16> -> tensor<32x8x512x256xbf16>
  return %o : tensor<32x8x512x256xbf16>
}

// SM90-LABEL: func.func @d128
// SM90: schedule = #flash.schedule<arch = "sm_90a", block_q = 192, block_kv = 80, stages = 2, warps = 16>
// SM100-LABEL: func.func @d128
// SM100: schedule = #flash.schedule<arch = "sm_100a", block_q = 256, block_kv = 128, stages = 2, warps = 16>
func.func @d128(%q: tensor<2x16x8192x128xbf16>, %k: tensor<2x16x8192x128xbf16>, %v: tensor<2x16x8192x128xbf16>) -> tensor<2x16x8192x128xbf16> {
  %o = flash.attention %q, %k, %v : tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16> -> tensor<2x16x8192x128xbf16>
  return %o : tensor<2x16x8192x128xbf16>
}

// Short and causal: the model charges each schedule for the (query, key)
// pairs it computes but masks. At N=512, 192-row tiles compute 59% useful
// pairs on the causal diagonal and 128-row tiles 80%, which outweighs the
// larger tile's advantage on sm_90a (the @d64 case above, at N=4096, keeps
// 192x128); the other targets keep their long-sequence choice.
// SM80-LABEL: func.func @d64_causal_short
// SM80: schedule = #flash.schedule<arch = "sm_80", block_q = 128, block_kv = 64, stages = 2, warps = 4>
// SM90-LABEL: func.func @d64_causal_short
// SM90: schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>
// SM100-LABEL: func.func @d64_causal_short
// SM100: schedule = #flash.schedule<arch = "sm_100a", block_q = 256, block_kv = 128, stages = 3, warps = 16>
func.func @d64_causal_short(%q: tensor<4x16x512x64xbf16>, %k: tensor<4x16x512x64xbf16>, %v: tensor<4x16x512x64xbf16>) -> tensor<4x16x512x64xbf16> {
  %o = flash.attention %q, %k, %v {causal} : tensor<4x16x512x64xbf16>, tensor<4x16x512x64xbf16>, tensor<4x16x512x64xbf16> -> tensor<4x16x512x64xbf16>
  return %o : tensor<4x16x512x64xbf16>
}

// An op that already has a schedule keeps it unless overwrite=true (its 10
// query rows take the split-KV form when it is chosen again).
// SM80-LABEL: func.func @kept
// SM80: schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 32, stages = 1, warps = 4>
// ALL-LABEL: func.func @kept
// ALL: schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 64, stages = 3, warps = 8, max_splits = 132>
func.func @kept(%q: tensor<1x1x10x16xf16>, %k: tensor<1x1x10x16xf16>, %v: tensor<1x1x10x16xf16>) -> tensor<1x1x10x16xf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 32, stages = 1, warps = 4>} : tensor<1x1x10x16xf16>, tensor<1x1x10x16xf16>, tensor<1x1x10x16xf16> -> tensor<1x1x10x16xf16>
  return %o : tensor<1x1x10x16xf16>
}

// Split-KV (Flash-Decoding): few query rows take the split-KV form when the
// rows of a kv-head's q-heads (Hq/Hkv × Nq) fit the target's smallest Q
// tile (64 rows on sm_80 and sm_90a, 128 on sm_100a). Its tiles are the
// split-KV kernels' (splitKVTileShape, include/flash/Target/SplitKV.h), on
// every target, so that the CPU form cuts a sequence into the parts the GPU
// kernels do: 16·m packed rows (m ≤ 256/D), 64 keys on 4 warps, the stages
// half an SM holds next to the Q tile (2 on sm_80, 3 on sm_90a and sm_100a
// at D=128 bf16); max_splits = the SM count (108, 132, 148). GQA 32/8
// decoding: 4 packed rows.
// SM80-LABEL: func.func @decode_gqa
// SM80: schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 64, stages = 2, warps = 4, max_splits = 108>
// SM90-LABEL: func.func @decode_gqa
// SM90: schedule = #flash.schedule<arch = "sm_90a", block_q = 16, block_kv = 64, stages = 3, warps = 4, max_splits = 132>
// SM100-LABEL: func.func @decode_gqa
// SM100: schedule = #flash.schedule<arch = "sm_100a", block_q = 16, block_kv = 64, stages = 3, warps = 4, max_splits = 148>
// split-kv=false keeps the forward form; max-splits sets the capacity.
// NOSPLIT-LABEL: func.func @decode_gqa
// NOSPLIT-NOT: max_splits
// NOSPLIT: return
// CAPACITY-LABEL: func.func @decode_gqa
// CAPACITY: schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 16, stages = 2, warps = 4, max_splits = 7>
func.func @decode_gqa(%q: tensor<4x32x1x128xbf16>, %k: tensor<4x8x8192x128xbf16>, %v: tensor<4x8x8192x128xbf16>) -> tensor<4x32x1x128xbf16> {
  %o = flash.attention %q, %k, %v : tensor<4x32x1x128xbf16>, tensor<4x8x8192x128xbf16>, tensor<4x8x8192x128xbf16> -> tensor<4x32x1x128xbf16>
  return %o : tensor<4x32x1x128xbf16>
}

// D=256: two stages (the fewest) on every target; one 16-row tile (the
// accumulators of 16 rows × 256 columns).
// SM80-LABEL: func.func @decode_d256
// SM80: schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 64, stages = 2, warps = 4, max_splits = 108>
// SM90-LABEL: func.func @decode_d256
// SM90: schedule = #flash.schedule<arch = "sm_90a", block_q = 16, block_kv = 64, stages = 2, warps = 4, max_splits = 132>
func.func @decode_d256(%q: tensor<1x8x1x256xbf16>, %k: tensor<1x1x8192x256xbf16>, %v: tensor<1x1x8192x256xbf16>) -> tensor<1x8x1x256xbf16> {
  %o = flash.attention %q, %k, %v : tensor<1x8x1x256xbf16>, tensor<1x1x8192x256xbf16>, tensor<1x1x8192x256xbf16> -> tensor<1x8x1x256xbf16>
  return %o : tensor<1x8x1x256xbf16>
}

// 65 packed rows do not fit 64: the forward form (sm_80, sm_90a), while
// sm_100a's 128-row tile holds them.
// SM80-LABEL: func.func @rows_65
// SM80: schedule = #flash.schedule<arch = "sm_80", block_q = {{[0-9]+}}, block_kv = {{[0-9]+}}, stages = 2, warps = 4>
// SM90-LABEL: func.func @rows_65
// SM90-NOT: max_splits
// SM90: return
// SM100-LABEL: func.func @rows_65
// SM100: max_splits = 148
func.func @rows_65(%q: tensor<1x1x65x64xbf16>, %k: tensor<1x1x4096x64xbf16>, %v: tensor<1x1x4096x64xbf16>) -> tensor<1x1x65x64xbf16> {
  %o = flash.attention %q, %k, %v : tensor<1x1x65x64xbf16>, tensor<1x1x4096x64xbf16>, tensor<1x1x4096x64xbf16> -> tensor<1x1x65x64xbf16>
  return %o : tensor<1x1x65x64xbf16>
}

// flash.paged_attention is always split; 8 q-heads × 16 queries = 128
// packed rows at D=64 take row tiles of 64 (the most the accumulators hold:
// 4 × 16 rows), two of them per kv-head.
// SM80-LABEL: func.func @paged_many_rows
// SM80: schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 4, warps = 4, max_splits = 108>
// SM90-LABEL: func.func @paged_many_rows
// SM90: schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 64, stages = 6, warps = 4, max_splits = 132>
// NOSPLIT-LABEL: func.func @paged_many_rows
// NOSPLIT: max_splits = 132
func.func @paged_many_rows(%q: tensor<2x32x16x64xf16>, %kc: tensor<512x16x4x64xf16>, %vc: tensor<512x16x4x64xf16>, %bt: tensor<2x64xi32>, %sl: tensor<2xi32>) -> tensor<2x32x16x64xf16> {
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl {causal} : tensor<2x32x16x64xf16>, tensor<512x16x4x64xf16>, tensor<512x16x4x64xf16>, tensor<2x64xi32>, tensor<2xi32> -> tensor<2x32x16x64xf16>
  return %o : tensor<2x32x16x64xf16>
}
