// A single query and a single key (N = 1).
// Compared with the float64 numpy oracle (python/flash_mlir/oracle.py) at atol = rtol = 1e-5.
// RUN: %python -m flash_mlir.testing.cpu_case gen --seed 11 --batch 1 --hq 2 --hkv 2 --nq 1 --nk 1 --d 16 --lse --mlir %t.mlir --expected %t.npz
// RUN: flash-opt %t.mlir --flash-cpu-pipeline | %mlir_runner > %t.1.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.1.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline=reference=true | %mlir_runner > %t.2.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.2.out
