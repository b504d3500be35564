// Tile size 1 on both loops (every step is one row and one key).
// Compared with the float64 numpy oracle (python/flash_mlir/oracle.py) at atol = rtol = 1e-5.
// RUN: %python -m flash_mlir.testing.cpu_case gen --seed 18 --batch 1 --hq 2 --hkv 1 --nq 9 --nk 11 --d 8 --causal --lse --mlir %t.mlir --expected %t.npz
// RUN: flash-opt %t.mlir --flash-cpu-pipeline="block-q=1 block-kv=1" | %mlir_runner > %t.1.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.1.out
