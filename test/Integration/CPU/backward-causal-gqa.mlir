// flash.attention_backward, causal GQA 4/2 at N = 257 (D = 32, Dv = 16): dQ, dK, dV printed
// with printMemrefF32, tiled with the sm_80 model's backward tiles, with 64 x 48 tiles (ragged
// tails on both loops), and through the reference lowering, each compared with the float64
// oracle (python/flash_mlir/oracle.py) on the same inputs to cpu_case.backward_rounding_tolerance.
// RUN: %python -m flash_mlir.testing.cpu_case gen --backward --seed 31 --batch 1 --hq 4 --hkv 2 --nq 257 --nk 257 --d 32 --dv 16 --causal --mlir %t.mlir --expected %t.npz
// RUN: flash-opt %t.mlir --flash-cpu-pipeline | %mlir_runner > %t.1.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.1.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline="block-q=64 block-kv=48" | %mlir_runner > %t.2.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.2.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline=reference=true | %mlir_runner > %t.3.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.3.out
// Three printed memrefs: dQ (B x Hq x Nq x D), dK (B x Hkv x Nk x D), dV (B x Hkv x Nk x Dv).
// RUN: grep -c "Unranked Memref" %t.1.out | FileCheck %s --check-prefix=THREE
// THREE: 3
