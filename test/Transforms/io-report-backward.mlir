// RUN: flash-opt %s --flash-select-schedule=arch=sm_80 --flash-io-report -o /dev/null | FileCheck %s --check-prefix=SM80
// RUN: flash-opt %s --flash-select-schedule=arch=sm_90a --flash-io-report -o /dev/null | FileCheck %s --check-prefix=SM90

// The backward's IO model (docs/io-model.md, "The backward").
// Tiled: the preprocess reads O and dO and writes D and the zeroed f32 dQ
// workspace (Nq·(2·Dv·e + 4 + 4·D) per q-head); the main loop reads K and V
// and writes dK and dV once per kv-head, and per Q row of every visited
// (K/V tile, Q tile) step reads the Q and dO rows, LSE and D ((D + Dv)·e + 8)
// and reads and writes the f32 workspace row (8·D); the conversion reads the
// workspace and writes dQ (Nq·D·(4 + e)).
// Standard (the paper's Algorithm 3 with P kept by the forward): per q-head
// e·(7·Nq·Nk + 2·Nq·Dv + 2·Nk·Dv + 2·Nk·D + 2·Nq·D).

// GPT-2 medium (N = 1024, d = 64, 16 heads, batch 64, fp16), 1024 heads:
// preprocess 1024·1024·(256 + 4 + 256) = 541065216; K/V and dK/dV
// 1024·1024·128·2 = 268435456 each; every K/V tile sees all 8 Q tiles of
// 128 rows, 8192 rows per head: Q/dO/LSE/D 1024·8192·264 = 2214592512 and
// the f32 dQ workspace 1024·8192·512 = 4294967296; convert 1024·1024·64·6 =
// 402653184. Standard 1024·2·(7·2^20 + 8·65536) = 16106127360.
// SM80: flash-io-report: loc({{.*}}io-report-backward.mlir":[[@LINE+15]]:19)
// SM80: problem        backward B=64 Hq=16 Hkv=16 Nq=1024 Nk=1024 D=64 Dv=64 f16 causal=no
// SM80: schedule       sm_80 Br=128 Bc=128 stages=2 warps=8
// SM80: SRAM/block     K/V tile 32768 B + 2 x Q/dO/LSE/D tile 33792 B + P/dS 65536 B = 165888 B (99.4% of 166912 B per block)
// SM80: registers      ~224 per accumulator thread (budget 255)
// SM80: HBM tiled      preprocess 541065216 + K/V 268435456 + dK/dV 268435456 + Q/dO/LSE/D 2214592512 + dQ f32 4294967296 + convert 402653184 = 7990149120 B (7.99 GB; Q rows read 8.00x per q-head)
// SM80: HBM standard   16106127360 B (16.1 GB; P read, dP and dS written and read)
// SM80: HBM saving     2.02x less traffic than standard
// 2·(3D + 2Dv) = 640 FLOPs per pair: 2.5x the forward's 275 GFLOP.
// SM80: FLOPs          useful 687194767360 (687 GFLOP), executed 687194767360 (687 GFLOP, whole tiles)
// sm_90a: 128×128 at D = 64 (the same K/V tiles: the same bytes).
// SM90: schedule       sm_90a Br=128 Bc=128 stages=2 warps=12
// SM90: HBM tiled      preprocess 541065216 + K/V 268435456 + dK/dV 268435456 + Q/dO/LSE/D 2214592512 + dQ f32 4294967296 + convert 402653184 = 7990149120 B (7.99 GB; Q rows read 8.00x per q-head)
func.func @gpt2_medium_backward(%q: tensor<64x16x1024x64xf16>, %k: tensor<64x16x1024x64xf16>, %v: tensor<64x16x1024x64xf16>,
                                %o: tensor<64x16x1024x64xf16>, %do: tensor<64x16x1024x64xf16>, %lse: tensor<64x16x1024xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse
      : tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>, tensor<64x16x1024xf32>
      -> tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>
  return
}

// Causal, N = 1000, GQA 8/2, bf16, 128×128 tiles: K/V tile j is seen by Q
// tiles j..7 (visibleQTiles), so a q-head reads Σ_j (1000 − 128·j) = 4416 Q
// rows (4.42x) in 36 tile steps; useful FLOPs count the 1000·1001/2 visible
// pairs per q-head, executed ones the 8·36 whole tiles. Standard adds the
// GQA reduction of the per-q-head dK, dV ((8 + 2)·1000·128·2 B).
// SM80: flash-io-report
// SM80: problem        backward B=1 Hq=8 Hkv=2 Nq=1000 Nk=1000 D=64 Dv=64 bf16 causal=yes
// SM80: schedule       sm_80 Br=128 Bc=128 stages=2 warps=8
// SM80: HBM tiled      preprocess 4128000 + K/V 512000 + dK/dV 512000 + Q/dO/LSE/D 9326592 + dQ f32 18087936 + convert 3072000 = 35638528 B (35.6 MB; Q rows read 4.42x per q-head)
// SM80: HBM standard   122752000 B
// SM80: FLOPs          useful 2562560000 (2.56 GFLOP), executed 3019898880 (3.02 GFLOP, whole tiles)
func.func @causal_gqa(%q: tensor<1x8x1000x64xbf16>, %k: tensor<1x2x1000x64xbf16>, %v: tensor<1x2x1000x64xbf16>,
                      %o: tensor<1x8x1000x64xbf16>, %do: tensor<1x8x1000x64xbf16>, %lse: tensor<1x8x1000xf32>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {causal}
      : tensor<1x8x1000x64xbf16>, tensor<1x2x1000x64xbf16>, tensor<1x2x1000x64xbf16>, tensor<1x8x1000x64xbf16>, tensor<1x8x1000x64xbf16>, tensor<1x8x1000xf32>
      -> tensor<1x8x1000x64xbf16>, tensor<1x2x1000x64xbf16>, tensor<1x2x1000x64xbf16>
  return
}
