#!/usr/bin/env bash
# Lead's H200 run 12, thirty-fourth session (issue 17, item 5): the checks of the shipped change
# (the page kernel for 2^k >= 64 slots looks a tile's page up once): decode_check of every sm_90a
# plan so compiled (new90full), memcheck and racecheck of small paged cases.
. "$(dirname "$0")/device-run.sh"
step check 200 python3 -m flash_mlir.tools.decode_check --bundles $S/new90full --json $O/check.json
step memcheck 120 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90full --small --only paged,anypage,many
step racecheck 100 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90full --small --only paged
finish
