// RUN: flash-opt %s --flash-select-schedule=arch=sm_80 --flash-io-report -o /dev/null | FileCheck %s --check-prefix=SM80
// RUN: flash-opt %s --flash-select-schedule=arch=sm_90a --flash-io-report -o /dev/null | FileCheck %s --check-prefix=SM90
// RUN: flash-opt %s --flash-select-schedule=arch=sm_90a --flash-io-report=output=%t.txt -o /dev/null
// RUN: FileCheck %s --check-prefix=SM90 < %t.txt
// RUN: flash-opt %s --flash-select-schedule=arch=sm_100a --flash-io-report -o /dev/null | FileCheck %s --check-prefix=SM100

// The IO model of docs/io-model.md, pinned on the paper's GPT-2 medium shape
// (N = 1024, d = 64, 16 heads, batch 64, fp16) and a causal GQA case.
// Standard attention: B·H·2·(4·N·d + 4·N²) = 9126805504 B. Tiled: Q and O once
// (134217728 B each) plus K and V once per Q tile: ceil(1024/Br) passes.

// SM80: flash-io-report: loc({{.*}}io-report.mlir":[[@LINE+28]]:8)
// SM80: problem        B=64 Hq=16 Hkv=16 Nq=1024 Nk=1024 D=64 Dv=64 f16 causal=no lse=no
// SM80: schedule       sm_80 Br=128 Bc=64 stages=2 warps=4
// SM80: SRAM/block     Q tile 16384 B + 2 x K/V tile 16384 B = 49152 B (29.4% of 166912 B per block)
// SM80: HBM tiled      Q 134217728 + K/V 2147483648 + O 134217728 + LSE 0 = 2415919104 B (2.42 GB; K/V read 8.00x per q-head)
// SM80: HBM standard   9126805504 B (9.13 GB; S and P written and read once each)
// SM80: HBM saving     3.78x less traffic than standard
// SM80: FLOPs          useful 274877906944 (275 GFLOP), executed 274877906944 (275 GFLOP, whole tiles)

// SM90: flash-io-report: loc({{.*}}io-report.mlir":[[@LINE+19]]:8)
// SM90: schedule       sm_90a Br=192 Bc=128 stages=2 warps=16
// SM90: SRAM/block     Q tile 24576 B + 2 x K/V tile 32768 B = 90112 B
// 1024 rows in tiles of 192 is 6 tiles (the last one short), so K/V is read 6x.
// SM90: HBM tiled      Q 134217728 + K/V 1610612736 + O 134217728 + LSE 0 = 1879048192 B (1.88 GB; K/V read 6.00x per q-head)
// SM90: HBM standard   9126805504 B
// The last tile's padding rows are executed but not useful.
// SM90: FLOPs          useful 274877906944 (275 GFLOP), executed 309237645312 (309 GFLOP, whole tiles)
// sm_100a: two 128-row Q tiles per block (Br = 256), K/V read once per
// block (4x), the FLOPs of each tile's own range; the register line is the
// kernel's setmaxnreg split (184 per softmax thread).
// SM100: flash-io-report: loc({{.*}}io-report.mlir":[[@LINE+8]]:8)
// SM100: schedule       sm_100a Br=256 Bc=128 stages=3 warps=16
// SM100: SRAM/block     Q tile 32768 B + 3 x K/V tile 32768 B = 131072 B
// SM100: registers      ~160 per accumulator thread (budget 184)
// SM100: TMEM/block     2 x 128-row Q tile, 512 of 512 columns
// SM100: HBM tiled      Q 134217728 + K/V 1073741824 + O 134217728 + LSE 0 = 1342177280 B (1.34 GB; K/V read 4.00x per q-head)
// SM100: FLOPs          useful 274877906944 (275 GFLOP), executed 274877906944 (275 GFLOP, whole tiles)
func.func @gpt2_medium(%q: tensor<64x16x1024x64xf16>, %k: tensor<64x16x1024x64xf16>, %v: tensor<64x16x1024x64xf16>) -> tensor<64x16x1024x64xf16> {
  %o = flash.attention %q, %k, %v : tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16> -> tensor<64x16x1024x64xf16>
  return %o : tensor<64x16x1024x64xf16>
}

// Causal, Nq = Nk = 1000, GQA 8/2, with LSE: the K/V loop of Q tile t reads
// min(1000, 128·(t+1)) rows, i.e. Σ = 128·(1+…+7) + 1000 = 4584 rows per
// head instead of 8·1000; useful FLOPs count the 1000·1001/2 visible pairs of each q-head.
// SM80: flash-io-report
// SM80: problem        B=1 Hq=8 Hkv=2 Nq=1000 Nk=1000 D=64 Dv=64 bf16 causal=yes lse=yes
// SM80: schedule       sm_80 Br=128 Bc=64 stages=2 warps=4
// SM80: HBM tiled      Q 1024000 + K/V 9388032 + O 1024000 + LSE 32000 = 11468032 B
// SM80: FLOPs          useful 1025024000 (1.03 GFLOP)
// sm_100a's 256-row blocks read min(1000, 256·(t+1)) rows: 256 + 512 + 768 +
// 1000 = 2536 per head; its 128-row tiles each execute their own range,
// 1 + 2 + … + 8 = 36 K/V tiles of 128 per head (as one-tile blocks would).
// SM100: flash-io-report
// SM100: schedule       sm_100a Br=256 Bc=128 stages=3 warps=16
// SM100: HBM tiled      Q 1024000 + K/V 5193728 + O 1024000 + LSE 32000 = 7273728 B
// SM100: FLOPs          useful 1025024000 (1.03 GFLOP), executed 1207959552 (1.21 GFLOP, whole tiles)
func.func @causal_gqa_lse(%q: tensor<1x8x1000x64xbf16>, %k: tensor<1x2x1000x64xbf16>, %v: tensor<1x2x1000x64xbf16>) -> (tensor<1x8x1000x64xbf16>, tensor<1x8x1000xf32>) {
  %o, %l = flash.attention %q, %k, %v {causal} : tensor<1x8x1000x64xbf16>, tensor<1x2x1000x64xbf16>, tensor<1x2x1000x64xbf16> -> tensor<1x8x1000x64xbf16>, tensor<1x8x1000xf32>
  return %o, %l : tensor<1x8x1000x64xbf16>, tensor<1x8x1000xf32>
}
