#!/usr/bin/env bash
# Lead's H200 run 8, thirty-second session (issue 17, item 5): EXPERIMENT grouped-fused.diff,
# the fused page kernels (_s16, _s64: S a constant) with the separate merge's kernel's start
# and loop form (one page lookup a 16-key group of a full tile, copies without the zero-fill
# operand, the prologue's table loads first). grp: bf16 D = 128 sm_90a non-causal paged plans;
# grpfull: every sm_90a paged plan so built; main90: main 9913b3c's.
. "$(dirname "$0")/device-run.sh"
DC="python3 -m flash_mlir.tools.decode_check"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step check 200 $DC --bundles $S/grpfull --only paged,anypage,many --json $O/check.json
step g-a 150 $DB --bundles $S/main90 --variant grp=$S/grp --json $O/g-a.json
step g-b 150 $DB --bundles $S/main90 --variant grp=$S/grp --json $O/g-b.json
step g-cold 150 $DB --cold --bundles $S/main90 --variant grp=$S/grp --json $O/g-cold.json
finish
