// flash.attention_backward, causal with Nq = 50 > Nk = 7 in bf16: rows 0..42 see no key
// (LSE = -inf, O = 0) and must give dQ = 0 and add nothing to dK, dV (never NaN).
// Tiles 16 x 4 and the model's; compared with the float64 oracle (python/flash_mlir/oracle.py)
// to cpu_case.backward_rounding_tolerance (P and dS rounded to bf16 in the tiled form).
// RUN: %python -m flash_mlir.testing.cpu_case gen --backward --seed 32 --batch 2 --hq 2 --hkv 1 --nq 50 --nk 7 --d 16 --causal --dtype bf16 --mlir %t.mlir --expected %t.npz
// RUN: flash-opt %t.mlir --flash-cpu-pipeline="block-q=16 block-kv=4" | %mlir_runner > %t.1.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.1.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline | %mlir_runner > %t.2.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.2.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline=reference=true | %mlir_runner > %t.3.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.3.out
