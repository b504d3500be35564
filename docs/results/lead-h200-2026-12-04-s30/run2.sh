#!/usr/bin/env bash
# Lead's H200 run 2, thirtieth session (issue 17, item 5): where main's separate split
# kernels (contiguous and paged S = 16 over the same bytes, sequential pages) spend their
# warps' time at GQA 8/1 B = 1, L = 8k and 128k: ncu warp states and per-instruction
# stall samples (SASS), warm L2 (no cache control), clocks as they run.
. "$(dirname "$0")/device-run.sh"
NCU="ncu --clock-control none --cache-control none -k regex:_separate"
SEC="--section WarpStateStats --section SourceCounters --section InstructionStats --section SchedulerStats --section LaunchStats --section SpeedOfLight"
step ncu8k 150 $NCU --launch-skip 4 --launch-count 2 $SEC -o $O/l8k python3 prof.py $S/main90 8192
step ncu128k 150 $NCU --launch-skip 4 --launch-count 2 $SEC -o $O/l128k python3 prof.py $S/main90 131072
for r in l8k l128k; do
  step $r-details 60 ncu --import $O/$r.ncu-rep --page details --csv
  step $r-source 60 ncu --import $O/$r.ncu-rep --page source --csv --print-source sass
done
finish
