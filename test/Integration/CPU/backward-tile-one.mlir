// flash.attention_backward with tile size 1 on both loops (every step is one query row and
// one key), causal Nq = 9 < Nk = 11, and non-causal N = 1, against the float64 oracle
// (python/flash_mlir/oracle.py) to cpu_case.backward_rounding_tolerance.
// RUN: %python -m flash_mlir.testing.cpu_case gen --backward --seed 34 --batch 1 --hq 2 --hkv 1 --nq 9 --nk 11 --d 8 --causal --mlir %t.mlir --expected %t.npz
// RUN: flash-opt %t.mlir --flash-cpu-pipeline="block-q=1 block-kv=1" | %mlir_runner > %t.1.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.1.out
// RUN: %python -m flash_mlir.testing.cpu_case gen --backward --seed 35 --batch 1 --hq 2 --hkv 2 --nq 1 --nk 1 --d 16 --mlir %t.one.mlir --expected %t.one.npz
// RUN: flash-opt %t.one.mlir --flash-cpu-pipeline | %mlir_runner > %t.2.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.one.npz --output %t.2.out
// RUN: flash-opt %t.one.mlir --flash-cpu-pipeline=reference=true | %mlir_runner > %t.3.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.one.npz --output %t.3.out
