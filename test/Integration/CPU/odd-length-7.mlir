// N = 7 with tiles that do not divide it (Br = 3, Bc = 2) and the default tiles (one tile >= N).
// Compared with the float64 numpy oracle (python/flash_mlir/oracle.py) at atol = rtol = 1e-5.
// RUN: %python -m flash_mlir.testing.cpu_case gen --seed 12 --batch 2 --hq 3 --hkv 3 --nq 7 --nk 7 --d 8 --dv 12 --lse --mlir %t.mlir --expected %t.npz
// RUN: flash-opt %t.mlir --flash-cpu-pipeline | %mlir_runner > %t.1.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.1.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline="block-q=3 block-kv=2" | %mlir_runner > %t.2.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.2.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline=reference=true | %mlir_runner > %t.3.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.3.out
