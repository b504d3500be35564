#!/usr/bin/env bash
# Lead's H200 run 1, thirty-fifth session (issue 17, item 5): the checks of the page kernel for
# 2^k >= 64 slots that looks a tile's page up once (branch s35-tilepage): decode_check of every
# sm_90a plan so compiled (new90), memcheck and racecheck of small paged cases.
. "$(dirname "$0")/device-run.sh"
step check 220 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --json $O/check.json
step memcheck 150 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,anypage,many
step racecheck 120 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged
finish
