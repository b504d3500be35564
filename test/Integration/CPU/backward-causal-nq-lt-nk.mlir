// flash.attention_backward, causal with Nq = 7 < Nk = 50 (bottom-right diagonal: row i sees
// keys j <= i + 43), MQA 4/1, Dv != D, f16, an explicit scale; tiles 4 x 16 and 3 x 5 and the
// reference, compared with the float64 oracle (python/flash_mlir/oracle.py) to
// cpu_case.backward_rounding_tolerance.
// RUN: %python -m flash_mlir.testing.cpu_case gen --backward --seed 33 --batch 1 --hq 4 --hkv 1 --nq 7 --nk 50 --d 16 --dv 32 --causal --scale 0.3 --dtype f16 --mlir %t.mlir --expected %t.npz
// RUN: flash-opt %t.mlir --flash-cpu-pipeline="block-q=4 block-kv=16" | %mlir_runner > %t.1.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.1.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline="block-q=3 block-kv=5" | %mlir_runner > %t.2.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.2.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline=reference=true | %mlir_runner > %t.3.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.3.out
