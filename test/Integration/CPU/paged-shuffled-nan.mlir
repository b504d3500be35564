// flash.paged_attention through --flash-cpu-pipeline (tiled: split stage and
// merge; and reference) against the float64 oracle at atol = rtol = 1e-5.
// The inputs (cpu_case gen-paged): 4 sequences of lengths 0, 1, 16 and 37
// in pages of 3 slots handed out in a shuffled order, GQA 4/2, Nq = 2
// causal (rows of the first sequence see nothing; query 0 of the second
// sees nothing either), LSE. Every slot past a length and every page no
// sequence owns holds NaN; every block-table entry past a sequence's pages
// is garbage (negative, past P, or another sequence's page). A NaN that
// reached a product, or a table entry read past a length, fails the check.
// RUN: %python -m flash_mlir.testing.cpu_case gen-paged --seed 3 --batch 4 --hq 4 --hkv 2 --nq 2 --d 16 --dv 8 --page-size 3 --seq-lens 0,1,16,37 --causal --lse --mlir %t.mlir --expected %t.npz
// RUN: grep -c 0x7FC00000 %t.mlir | FileCheck %s --check-prefix=POISONED
// RUN: flash-opt %t.mlir --flash-cpu-pipeline="block-q=4 block-kv=4" | %mlir_runner > %t.1.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.1.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline | %mlir_runner > %t.2.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.2.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline=reference=true | %mlir_runner > %t.3.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.3.out

// The caches do hold NaN (one line each for K and V).
// POISONED: 2
