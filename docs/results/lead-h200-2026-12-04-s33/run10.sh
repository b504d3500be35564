#!/usr/bin/env bash
# Lead's H200 run 10, thirty-third session (issue 17, item 5): the checks of the shipped split
# rule (parts of at least 2 tiles): decode_check of every sm_90a plan (full90: the 48 plans
# lit's ptx-decode.mlir compiles) and --quick of every sm_80 plan (full80, sm_90 cubins),
# memcheck and racecheck of small cases, and decode_bench of the issue's table (min2 the
# plans, main90 the variant).
. "$(dirname "$0")/device-run.sh"
step check90 200 python3 -m flash_mlir.tools.decode_check --bundles $S/full90
step check80 150 python3 -m flash_mlir.tools.decode_check --bundles $S/full80 --quick
step memcheck 150 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/full90 --small --only paged,split,many
step racecheck 120 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/full90 --small --only paged
finish
