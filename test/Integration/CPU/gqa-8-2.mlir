// Grouped-query attention, 8 query heads over 2 key/value heads, batch 2.
// Compared with the float64 numpy oracle (python/flash_mlir/oracle.py) at atol = rtol = 1e-5.
// RUN: %python -m flash_mlir.testing.cpu_case gen --seed 14 --batch 2 --hq 8 --hkv 2 --nq 33 --nk 45 --d 16 --lse --mlir %t.mlir --expected %t.npz
// RUN: flash-opt %t.mlir --flash-cpu-pipeline="block-q=8 block-kv=16" | %mlir_runner > %t.1.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.1.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline=reference=true | %mlir_runner > %t.2.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.2.out
