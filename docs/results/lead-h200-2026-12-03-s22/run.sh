#!/usr/bin/env bash
# Lead's H200 run, twenty-second session (one call, device budget nearly spent after
# refusals): 1) H3's staged GPU check of the split-KV warp-0 combine
# (build/s22-h3-run/run.sh: decode_check --only rows on compile --decode-rows 64 sm_80
# plans, a planted bug, the shipped 16-row plans, memcheck, racecheck); 2) H1's staged
# the merged D = 128 backward (skipsFirstDQ): memcheck and racecheck of its own kernels, then a 5-round bench against main 2485bd3 and SDPA (build/s22-h1-run2/san.sh, a shortened run2.sh).
# against main 2485bd3 and SDPA, 9 rounds; memcheck and racecheck of its own kernels).
# The issue's decode table on the merged main (staged here as b/dec90) was left out for
# lack of device time.
set -u
S=$(cd "$(dirname "$0")" && pwd); O=$(mktemp -d)
t0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; } > "$O/env.txt" 2>&1
mkdir -p $O/h3; ( OUT=$O/h3 CHECK_LIMIT=55 bash $S/../s22-h3-run/run.sh > $O/h3/run.out 2>&1 )
echo "h3 $(( $(date +%s) - t0 ))s" | tee -a $O/steps.txt; save
mkdir -p $O/h1; ( OUT=$O/h1 timeout 140 bash $S/../s22-h1-run2/san.sh > $O/h1/san.out 2>&1 )
echo "h1 $(( $(date +%s) - t0 ))s" | tee -a $O/steps.txt; save
