// N = 100 with an explicit scale, tiles 16 x 32 (ragged tails on both loops).
// Compared with the float64 numpy oracle (python/flash_mlir/oracle.py) at atol = rtol = 1e-5.
// RUN: %python -m flash_mlir.testing.cpu_case gen --seed 13 --batch 1 --hq 2 --hkv 1 --nq 100 --nk 100 --d 32 --scale 0.3 --mlir %t.mlir --expected %t.npz
// RUN: flash-opt %t.mlir --flash-cpu-pipeline="block-q=16 block-kv=32" | %mlir_runner > %t.1.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.1.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline | %mlir_runner > %t.2.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.2.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline=reference=true | %mlir_runner > %t.3.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.3.out
