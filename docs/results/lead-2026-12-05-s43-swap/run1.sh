#!/usr/bin/env bash
# s43 run 1 (staged by stage.sh in this folder): the GPU checks of the swapped split loop
# (every sm_90a and sm_80 decode plan), memcheck and racecheck, and the time against
# main's plans, sm_90a back to back with the slots swapped (a, b), sm_80 (c, d).
. "$(dirname "$0")/device-run.sh"
step check90 240 python3 -m flash_mlir.tools.decode_check --bundles $S/swap90 --json $O/check90.json
step check80 240 python3 -m flash_mlir.tools.decode_check --bundles $S/swap80 --json $O/check80.json
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 100 $DB --bundles $S/swap90 --variant base=$S/base --json $O/a.json
step b 100 $DB --bundles $S/base --variant swap=$S/swap90 --json $O/b.json
step memcheck 90 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/swap90 --small --only paged,rows
step racecheck 90 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/swap90 --small --only paged,rows
step c 100 $DB --bundles $S/swap80 --variant base=$S/base80 --json $O/c.json
step d 100 $DB --bundles $S/base80 --variant swap=$S/swap80 --json $O/d.json
finish
