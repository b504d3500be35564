#!/usr/bin/env bash
# Lead's H200 run 6, thirty-second session (issue 17): decode_check --only anypage, the paged
# cases at S = 16 and 64 through the kernels for any S (the page kernels given no blocks).
# main90full: main's sm_90a decode set (48 plans, lit's ptx-decode.mlir build at 9913b3c's
# code); plant90: sm_90a paged plans whose kernels for any S take slot = key & (S/2 - 1)
# (plant-anypage.diff; the page kernels unchanged).
. "$(dirname "$0")/device-run.sh"
DC="python3 -m flash_mlir.tools.decode_check"
step check 300 $DC --bundles $S/main90full --json $O/check.json
step plant-paged 200 $DC --bundles $S/plant90 --only paged --json $O/plant-paged.json
step plant-anypage 200 $DC --bundles $S/plant90 --only anypage --json $O/plant-anypage.json
finish
