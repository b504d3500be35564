#!/usr/bin/env bash
# Lead's H200 run 5, thirty-first session (issue 17): an in-bounds plant and the kernels for
# any S at S = 16 and 64. plant90: sm_90a's paged plans from a flash-opt whose page kernels
# (_s16, _s64) take slot = key & (S/2 - 1) (plant.diff's second hunk: the right page, wrong
# slots, in bounds), the split_kv plans as shipped; none90: the paged plans compiled with
# --fused-page-sizes none (only the kernels for any S), the split_kv plans as shipped.
. "$(dirname "$0")/device-run.sh"
DC="python3 -m flash_mlir.tools.decode_check"
step plant 200 $DC --bundles $S/plant90 --only paged --json $O/plant.json
step none 200 $DC --bundles $S/none90 --only paged,many --page-sizes 16,64 --json $O/none.json
finish
