#!/usr/bin/env bash
# Lead's H200 run 9, thirty-fourth session (issue 17, item 5): the fused page-size kernels reading
# part 0's prologue block-table entries next to seq_lens (spec90full: every sm_90a decode plan
# compiled with FLASH_DECODE_EXP=spec0): timed against main90 (both slot orders), then checked.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 200 $DB --bundles $S/main90 --variant spec0=$S/spec90full --json $O/a.json
step b 200 $DB --bundles $S/spec90full --variant main=$S/main90 --json $O/b.json
step check 200 python3 -m flash_mlir.tools.decode_check --bundles $S/spec90full --json $O/check.json
step memcheck 150 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/spec90full --small --only paged,many
step racecheck 120 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/spec90full --small --only paged
finish
