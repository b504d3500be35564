#!/usr/bin/env bash
# s48 run 4 (staged by stage4.sh): the pair merge as built, checked as a whole (decode_check of
# every sm_90a decode plan, memcheck and racecheck of the small lists, which hold a pair-merge
# call), then timed against main's plans on the issue's rows, the slots swapped.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step check90 240 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --json $O/check90.json
step memcheck 90 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,many
step racecheck 90 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,many
step a 120 $DB --bundles $S/new90 --variant base=$S/base --json $O/a.json
step b 120 $DB --bundles $S/base --variant new=$S/new90 --json $O/b.json
finish
