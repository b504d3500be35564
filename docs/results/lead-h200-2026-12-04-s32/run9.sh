#!/usr/bin/env bash
# Lead's H200 run 9, thirty-second session (issue 17, item 5): the shipped form of run 8's
# change (the fused split kernels for one page size take the grouped start and loop; the other
# kernels' PTX is main's). new90full: the sm_90a decode set (48 plans); new90 / main90: bf16
# D = 128 (main90: main 9913b3c's plans).
. "$(dirname "$0")/device-run.sh"
DC="python3 -m flash_mlir.tools.decode_check"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step check 300 $DC --bundles $S/new90full --json $O/check.json
step ab-b 150 $DB --bundles $S/new90 --variant main=$S/main90 --json $O/ab-b.json
step memcheck 200 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode $DC --bundles $S/new90full --small --only paged,anypage,many,graph
step racecheck 200 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode $DC --bundles $S/new90full --small --only paged,anypage
finish
