#!/usr/bin/env bash
# s58 run 2: compute-sanitizer memcheck and racecheck on main's plans (main90: the grid
# bounded by the cache's capacity; the kernels are unchanged since the last sanitizer
# runs, the launches' grids are not), decode_check's two tiny cases per check of the
# paged, split and many-part checks (the merges: fused, separate, two levels, pairs).
. "$(dirname "$0")/device-run.sh"
CS="compute-sanitizer --kernel-name kns=flash_decode --error-exitcode 9"
DC="python3 -m flash_mlir.tools.decode_check --bundles $S/main90 --small --only paged,split,many"
step memcheck 200 $CS --tool memcheck $DC
step racecheck 300 $CS --tool racecheck $DC
finish
