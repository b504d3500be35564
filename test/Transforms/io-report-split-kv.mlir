// RUN: flash-opt %s --flash-select-schedule=arch=sm_90a --flash-io-report -o /dev/null | FileCheck %s

// The split-KV model (docs/io-model.md, "Split-KV and paged K/V"): K and V
// are read once per kv-head (the group's query rows are packed in one Q
// tile), against once per q-head for one block per (b, q-head); the
// partials' workspace (f32 O and LSE per split, rows × (Dv + 1) × 4 B) is
// written once and read once by the merge; a paged op also reads its block
// table (4 B per page of every (b, kv-head)) and lengths (4 B per block).

// Decoding one sequence of 128k keys (8192 pages of 16), GQA 32/8, D = 128:
// The split-KV kernels' tiles (16 rows, 64 keys, 3 stages); splitKVCount
// (Target/SplitKV.h, the GPU kernels' rule; 3 stages aim at one block an
// SM): 8 (b, kv-head) blocks want floor(132 / 8) = 16 parts of 2048 / 16 =
// 128 tiles. Q: 32 heads × 128 × 2 B × 16 splits. K/V: 8 heads × 131072
// keys × 256 × 2 B. Partials: 2 × 8 × 16 splits × 4 rows × 129 × 4 B.
// Table: 8 × 8192 × 4 B + (128 + 8) × 4 B.
// CHECK: flash-io-report: loc({{.*}}io-report-split-kv.mlir":[[@LINE+13]]:8)
// CHECK: problem        paged B=1 Hq=32 Hkv=8 Nq=1 Nk=131072 D=128 Dv=128 bf16 causal=no lse=no
// CHECK: pages          P=8192 S=16 M=8192 (Nk = M·S: every sequence full; lengths are run-time values)
// CHECK: schedule       sm_90a Br=16 Bc=64 stages=3 warps=4 max_splits=132
// CHECK: packing        4 q-heads x Nq=1 = 4 rows per kv-head, 1 Q tile(s) of 16
// CHECK: splits         16 of 128 K/V tile(s) per (b, kv-head) at Nk=131072; split stage 128 blocks, merge 8 blocks (132 SMs)
// CHECK: SRAM/block     102400 B
// CHECK: HBM split-KV   Q 131072 + K/V 536870912 + table 262688 + O 8192 + LSE 0 + partials 528384 = 537801248 B (538 MB)
// CHECK: K/V            read once per kv-head: 536870912 B; one block per q-head would read 2147483648 B (4.00x)
// CHECK: partials       f32 O and LSE of 16 split(s), written once and read once by the merge: 528384 B (0.1% of the traffic)
// CHECK: FLOPs          useful 2147483648 (2.15 GFLOP)
// CHECK: time floors    compute 0.0022 ms, HBM 0.1120 ms (peak rates of H100/H200 SXM)
func.func @decode_paged(%q: tensor<1x32x1x128xbf16>, %kc: tensor<8192x16x8x128xbf16>, %vc: tensor<8192x16x8x128xbf16>, %bt: tensor<1x8192xi32>, %sl: tensor<1xi32>) -> tensor<1x32x1x128xbf16> {
  %o = flash.paged_attention %q, %kc, %vc, %bt, %sl : tensor<1x32x1x128xbf16>, tensor<8192x16x8x128xbf16>, tensor<8192x16x8x128xbf16>, tensor<1x8192xi32>, tensor<1xi32> -> tensor<1x32x1x128xbf16>
  return %o : tensor<1x32x1x128xbf16>
}

// A batch of 64 already fills the SMs (512 blocks): one split, whose
// partials are 0.1% of the traffic.
// CHECK: flash-io-report: loc({{.*}}io-report-split-kv.mlir":[[@LINE+6]]:8)
// CHECK: problem        split-KV B=64 Hq=32 Hkv=8 Nq=1 Nk=8192 D=128 Dv=128 bf16 causal=no lse=no
// CHECK: splits         1 of 128 K/V tile(s) per (b, kv-head) at Nk=8192; split stage 512 blocks, merge 512 blocks (132 SMs)
// CHECK: HBM split-KV   Q 524288 + K/V 2147483648 + table 0 + O 524288 + LSE 0 + partials 2113536 = 2150645760 B (2.15 GB)
// CHECK: K/V            read once per kv-head: 2147483648 B; one block per q-head would read 8589934592 B (4.00x)
func.func @decode_b64(%q: tensor<64x32x1x128xbf16>, %k: tensor<64x8x8192x128xbf16>, %v: tensor<64x8x8192x128xbf16>) -> tensor<64x32x1x128xbf16> {
  %o = flash.attention %q, %k, %v : tensor<64x32x1x128xbf16>, tensor<64x8x8192x128xbf16>, tensor<64x8x8192x128xbf16> -> tensor<64x32x1x128xbf16>
  return %o : tensor<64x32x1x128xbf16>
}

// Speculative decoding, causal Nq = 4 with LSE, MQA 8/1: 32 packed rows; the
// last query sees all 1000 keys, so K/V are read in full once (8x less than
// once per q-head); one row tile of 32; the 16 K/V tiles of 64 keys make 8
// splits of 2 (a part keeps at least 2 tiles), whose partials are 31% of the
// traffic.
// CHECK: flash-io-report: loc({{.*}}io-report-split-kv.mlir":[[@LINE+7]]:12)
// CHECK: problem        split-KV B=2 Hq=8 Hkv=1 Nq=4 Nk=1000 D=64 Dv=64 f16 causal=yes lse=yes
// CHECK: packing        8 q-heads x Nq=4 = 32 rows per kv-head, 1 Q tile(s) of 32
// CHECK: splits         8 of 2 K/V tile(s) per (b, kv-head) at Nk=1000; split stage 16 blocks, merge 2 blocks (132 SMs)
// CHECK: HBM split-KV   Q 65536 + K/V 512000 + table 0 + O 8192 + LSE 256 + partials 266240 = 852224 B (852 KB)
// CHECK: K/V            read once per kv-head: 512000 B; one block per q-head would read 4096000 B (8.00x)
func.func @spec_decode(%q: tensor<2x8x4x64xf16>, %k: tensor<2x1x1000x64xf16>, %v: tensor<2x1x1000x64xf16>) -> (tensor<2x8x4x64xf16>, tensor<2x8x4xf32>) {
  %o, %l = flash.attention %q, %k, %v {causal} : tensor<2x8x4x64xf16>, tensor<2x1x1000x64xf16>, tensor<2x1x1000x64xf16> -> tensor<2x8x4x64xf16>, tensor<2x8x4xf32>
  return %o, %l : tensor<2x8x4x64xf16>, tensor<2x8x4xf32>
}
