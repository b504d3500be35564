// The issue's shape class at N = 1000: causal GQA 4/2, D = 64, default (sm_80 model) tiles and 64 x 48.
// Compared with the float64 numpy oracle (python/flash_mlir/oracle.py) at atol = rtol = 1e-5.
// RUN: %python -m flash_mlir.testing.cpu_case gen --seed 17 --batch 1 --hq 4 --hkv 2 --nq 1000 --nk 1000 --d 64 --causal --lse --mlir %t.mlir --expected %t.npz
// RUN: flash-opt %t.mlir --flash-cpu-pipeline | %mlir_runner > %t.1.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.1.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline="block-q=64 block-kv=48" | %mlir_runner > %t.2.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.2.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline=reference=true | %mlir_runner > %t.3.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.3.out
