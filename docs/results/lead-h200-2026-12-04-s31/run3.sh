#!/usr/bin/env bash
# Lead's H200 run 3, thirty-first session (issue 17): the shipped sm_90a decode set
# (full64: 48 plans + 24 s16 + 24 s64, as compile --arch sm_90a --ops split_kv,paged now
# writes them) through every decode_check check at page sizes 16, 64 and 256, and
# racecheck of the small paged cases (S = 16 and 64: both variants).
. "$(dirname "$0")/device-run.sh"
DC="python3 -m flash_mlir.tools.decode_check"
step check 300 $DC --bundles $S/full64 --json $O/check.json
step racecheck 200 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode $DC --bundles $S/full64 --small --only paged
finish
