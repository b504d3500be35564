#!/usr/bin/env bash
# s51 run 3 (run 1's staging with this script added): racecheck of the paged S = 16 cases
# of --quick (D = 64, 128 and 256: run 2's --small cases hold no D = 256 one) on fit90 and
# fit80s.
. "$(dirname "$0")/device-run.sh"
DC="python3 -m flash_mlir.tools.decode_check"
step race90q 240 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode $DC --bundles $S/fit90 --quick --only paged --page-sizes 16
step race80q 200 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode $DC --bundles $S/fit80s --quick --only paged --page-sizes 16
finish
