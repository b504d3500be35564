#!/usr/bin/env bash
# s46 run 1 (staged by stage.sh): main f018569's sm_90a decode plans (new90) as a whole
# through decode_check, memcheck and racecheck; then their time against the plans before
# the forty-fourth session's rule (pre90) and main b141daa's (b141), the slots swapped
# between two processes.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step check90 200 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --json $O/check90.json
step memcheck 60 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,many
step racecheck 60 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,many
step a 120 $DB --bundles $S/new90 --variant pre=$S/pre90 --variant b141=$S/b141 --json $O/a.json
step b 120 $DB --bundles $S/pre90 --variant new=$S/new90 --variant b141=$S/b141 --json $O/b.json
finish
