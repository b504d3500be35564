// REQUIRES: ptxas
// The two forms of the split-KV kernel's combine of its four warps'
// (m, l, O) (SM80/DecodeKernel.cpp), pinned in PTX. After the K/V loop
// (cp.async.wait_group 0 and a block barrier) the warps leave their words
// in shared memory over the drained K/V stages (after the Q tile):
// - four warps (where the four warps' words fit in the K/V stages): every
//   warp stores its words, a barrier, then every warp loads the statistics
//   of every row and its quarter of the columns from the four warps;
// - warp 0 alone (where they do not): warps 1-3 store (under a branch on
//   the warp index), a barrier, then warp 0 (a branch) loads the three
//   others' words and combines every column.
// Which one a kernel has follows from its schedule (row tile 16·m, stages),
// which flash-select-schedule chooses from the op's packed rows G·Nq and
// the arch's shared memory (splitKVTileShape, Target/SplitKV.h). On sm_80
// warp 0 combines alone at D = 64 with m = 4 (4 stages: 4 · 4 · 4608 words
// in 4 · 16 KiB) and at D = 128 with m = 2 (2 stages: 4 · 4 · 4352 words in
// 2 · 32 KiB): ops of more than 48 (D = 64) or 16 (D = 128) packed rows,
// and `compile --decode-rows 64` plans; the shipped bundles (GQA 32/8,
// Nq = 1: m = 1) never. sm_90a (more stages) always combines with four
// warps. The GPU check of the warp-0 form: docs/benchmarks.md, twenty-second
// session (issue 17).

// RUN: rm -rf %t && flash-opt %s --flash-to-ptx="arch=sm_80 bundle-dir=%t/sm80" -o /dev/null
// RUN: flash-opt %s --flash-to-ptx="arch=sm_90a bundle-dir=%t/sm90a" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON64 < %t/sm80/d64_rows64.json
// RUN: FileCheck %s --check-prefix=WARP0-D64 < %t/sm80/d64_rows64.ptx
// RUN: FileCheck %s --check-prefix=JSON128 < %t/sm80/d128_rows32.json
// RUN: FileCheck %s --check-prefix=WARP0-D128 < %t/sm80/d128_rows32.ptx
// RUN: FileCheck %s --check-prefix=FOUR-D64 < %t/sm80/d64_rows48.ptx
// RUN: FileCheck %s --check-prefix=FOUR-SHIPPED < %t/sm80/d128_rows4.ptx
// RUN: FileCheck %s --check-prefix=FOUR-SM90 < %t/sm90a/d128_rows32.ptx

// sm_80, paged, D = 64, GQA 64/1: a 64-row tile (m = 4), 4 stages. Warp 0
// combines: 3 warps store 144 words each (2·2·4 statistics + 128
// accumulators a lane) past the 8 KiB Q tile, warp 0 loads their 432.
// JSON64: "block_q": 64,
// JSON64: "stages": 4,
// WARP0-D64: cp.async.wait_group 0;{{[[:space:]]+}}bar.sync 0;{{[[:space:]]+}}setp.eq.b32 [[FIRST:%p[0-9]+]], [[WARP:%r[0-9]+]], 0;
// WARP0-D64-NEXT: @[[FIRST]] bra [[STORED:\$L__BB[0-9_]+]];
// WARP0-D64-COUNT-144: st.shared.b32 [%rd{{[0-9]+}}+{{[0-9]+}}]
// WARP0-D64-NOT: st.shared
// WARP0-D64: [[STORED]]:
// WARP0-D64-NOT: ld.shared
// WARP0-D64: setp.ne.b32 [[OTHER:%p[0-9]+]], [[WARP]], 0;
// WARP0-D64-NEXT: bar.sync 0;
// WARP0-D64-NEXT: @[[OTHER]] bra
// WARP0-D64-COUNT-432: ld.shared.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}+{{[0-9]+}}];
// WARP0-D64-NOT: ld.shared.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}+{{[0-9]+}}];
func.func @d64_rows64(%q: tensor<1x64x1x64xbf16>, %k: tensor<256x16x1x64xbf16>, %v: tensor<256x16x1x64xbf16>, %table: tensor<1x256xi32>, %lens: tensor<1xi32>) -> tensor<1x64x1x64xbf16> {
  %o = flash.paged_attention %q, %k, %v, %table, %lens : tensor<1x64x1x64xbf16>, tensor<256x16x1x64xbf16>, tensor<256x16x1x64xbf16>, tensor<1x256xi32>, tensor<1xi32> -> tensor<1x64x1x64xbf16>
  return %o : tensor<1x64x1x64xbf16>
}

// sm_80, few-row flash.attention (contiguous cache), D = 128, GQA 8/1,
// Nq = 4: a 32-row tile (m = 2), 2 stages. Warp 0 combines: 3 · 136 words.
// On sm_90a the same op has 3 stages and four warps combine: every warp
// stores its 136 words and loads 4 · (4 + 4 + 32) = 160 (the fused-merge
// split kernel, before the separate merge's split kernel).
// JSON128: "block_q": 32,
// JSON128: "stages": 2,
// WARP0-D128: cp.async.wait_group 0;{{[[:space:]]+}}bar.sync 0;{{[[:space:]]+}}setp.eq.b32 [[FIRST:%p[0-9]+]], [[WARP:%r[0-9]+]], 0;
// WARP0-D128-NEXT: @[[FIRST]] bra [[STORED:\$L__BB[0-9_]+]];
// WARP0-D128-COUNT-136: st.shared.b32 [%rd{{[0-9]+}}+{{[0-9]+}}]
// WARP0-D128-NOT: st.shared
// WARP0-D128: [[STORED]]:
// WARP0-D128-NOT: ld.shared
// WARP0-D128: setp.ne.b32 [[OTHER:%p[0-9]+]], [[WARP]], 0;
// WARP0-D128-NEXT: bar.sync 0;
// WARP0-D128-NEXT: @[[OTHER]] bra
// WARP0-D128-COUNT-408: ld.shared.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}+{{[0-9]+}}];
// WARP0-D128-NOT: ld.shared.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}+{{[0-9]+}}];
// FOUR-SM90: cp.async.wait_group 0;{{[[:space:]]+}}bar.sync 0;{{[[:space:]]+}}mul.lo.s32 %r{{[0-9]+}}, %r{{[0-9]+}}, 4352;
// FOUR-SM90-NOT: {{setp|bra|bar.sync}}
// FOUR-SM90-COUNT-136: st.shared.b32 [%rd{{[0-9]+}}+{{[0-9]+}}]
// FOUR-SM90-NEXT: bar.sync 0;
// FOUR-SM90-NOT: {{bra|bar.sync}}
// FOUR-SM90-COUNT-160: ld.shared.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}+{{[0-9]+}}];
// FOUR-SM90-NOT: ld.shared.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}+{{[0-9]+}}];
// FOUR-SM90: .entry d128_rows32_separate(
func.func @d128_rows32(%q: tensor<1x8x4x128xbf16>, %k: tensor<1x1x4096x128xbf16>, %v: tensor<1x1x4096x128xbf16>) -> tensor<1x8x4x128xbf16> {
  %o = flash.attention %q, %k, %v {causal} : tensor<1x8x4x128xbf16>, tensor<1x1x4096x128xbf16>, tensor<1x1x4096x128xbf16> -> tensor<1x8x4x128xbf16>
  return %o : tensor<1x8x4x128xbf16>
}

// sm_80, paged, D = 64, GQA 48/1: a 48-row tile (m = 3), 4 stages: the four
// warps' words fit (4 · 4 · 3456 in 64 KiB), four warps combine: 108 words
// stored a warp past the 6 KiB Q tile, 4 · (6 + 6 + 24) = 144 loaded.
// FOUR-D64: cp.async.wait_group 0;{{[[:space:]]+}}bar.sync 0;{{[[:space:]]+}}mul.lo.s32 %r{{[0-9]+}}, %r{{[0-9]+}}, 3456;
// FOUR-D64-NOT: {{setp|bra|bar.sync}}
// FOUR-D64-COUNT-108: st.shared.b32 [%rd{{[0-9]+}}+{{[0-9]+}}]
// FOUR-D64-NEXT: bar.sync 0;
// FOUR-D64-NOT: {{bra|bar.sync}}
// FOUR-D64-COUNT-144: ld.shared.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}+{{[0-9]+}}];
// FOUR-D64-NOT: ld.shared.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}+{{[0-9]+}}];
func.func @d64_rows48(%q: tensor<1x48x1x64xbf16>, %k: tensor<256x16x1x64xbf16>, %v: tensor<256x16x1x64xbf16>, %table: tensor<1x256xi32>, %lens: tensor<1xi32>) -> tensor<1x48x1x64xbf16> {
  %o = flash.paged_attention %q, %k, %v, %table, %lens : tensor<1x48x1x64xbf16>, tensor<256x16x1x64xbf16>, tensor<256x16x1x64xbf16>, tensor<1x256xi32>, tensor<1xi32> -> tensor<1x48x1x64xbf16>
  return %o : tensor<1x48x1x64xbf16>
}

// The shipped plans' shape (GQA 32/8, Nq = 1: 4 rows, m = 1), sm_80, paged,
// D = 128, 2 stages: four warps combine (68 words a warp past the 4 KiB Q
// tile, 4 · (2 + 2 + 16) = 80 loaded).
// FOUR-SHIPPED: cp.async.wait_group 0;{{[[:space:]]+}}bar.sync 0;{{[[:space:]]+}}mul.lo.s32 %r{{[0-9]+}}, %r{{[0-9]+}}, 2176;
// FOUR-SHIPPED-NOT: {{setp|bra|bar.sync}}
// FOUR-SHIPPED-COUNT-68: st.shared.b32 [%rd{{[0-9]+}}+{{[0-9]+}}]
// FOUR-SHIPPED-NEXT: bar.sync 0;
// FOUR-SHIPPED-NOT: {{bra|bar.sync}}
// FOUR-SHIPPED-COUNT-80: ld.shared.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}+{{[0-9]+}}];
// FOUR-SHIPPED-NOT: ld.shared.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}+{{[0-9]+}}];
func.func @d128_rows4(%q: tensor<1x32x1x128xbf16>, %k: tensor<256x16x8x128xbf16>, %v: tensor<256x16x8x128xbf16>, %table: tensor<1x256xi32>, %lens: tensor<1xi32>) -> tensor<1x32x1x128xbf16> {
  %o = flash.paged_attention %q, %k, %v, %table, %lens : tensor<1x32x1x128xbf16>, tensor<256x16x8x128xbf16>, tensor<256x16x8x128xbf16>, tensor<1x256xi32>, tensor<1xi32> -> tensor<1x32x1x128xbf16>
  return %o : tensor<1x32x1x128xbf16>
}
