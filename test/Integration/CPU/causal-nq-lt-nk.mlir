// Causal with Nq = 7 < Nk = 100: the diagonal is aligned bottom-right (row i sees keys j <= i + 93).
// Compared with the float64 numpy oracle (python/flash_mlir/oracle.py) at atol = rtol = 1e-5.
// RUN: %python -m flash_mlir.testing.cpu_case gen --seed 15 --batch 1 --hq 4 --hkv 2 --nq 7 --nk 100 --d 16 --dv 32 --causal --lse --mlir %t.mlir --expected %t.npz
// RUN: flash-opt %t.mlir --flash-cpu-pipeline="block-q=4 block-kv=16" | %mlir_runner > %t.1.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.1.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline | %mlir_runner > %t.2.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.2.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline=reference=true | %mlir_runner > %t.3.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.3.out
