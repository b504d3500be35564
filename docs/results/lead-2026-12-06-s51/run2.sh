#!/usr/bin/env bash
# s51 run 2 (run 1's staging with this script added): racecheck of the plans built with the
# split rule where two blocks do not fit an SM (fit90: every sm_90a decode plan; fit80s:
# every sm_80 plan as sm_90 cubins; --small: two tiny cases a check), and memcheck of
# fit80s' paged S = 16 cases (run 1's memcheck took fit90's).
. "$(dirname "$0")/device-run.sh"
DC="python3 -m flash_mlir.tools.decode_check"
step race90 200 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode $DC --bundles $S/fit90 --small --only paged,many
step race80 150 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode $DC --bundles $S/fit80s --small --only paged,many
step mem80 90 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode $DC --bundles $S/fit80s --quick --only paged --page-sizes 16
finish
