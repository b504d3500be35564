#!/usr/bin/env bash
# Lead's H200 run 3, thirtieth session (issue 17, item 5): run 2's profile at the densest
# warp sampling (every 32 cycles) at GQA 8/1 B = 1 L = 8k and 32k, of main's separate split
# kernels (contiguous, paged S = 16 over the same bytes) and of run 1's `new` paged kernel.
. "$(dirname "$0")/device-run.sh"
NCU="ncu --clock-control none --cache-control none -k regex:_separate --warp-sampling-interval 0"
SEC="--section WarpStateStats --section SourceCounters --section InstructionStats --section LaunchStats"
for b in main90 new90; do
  for l in 8192 32768; do
    step $b-$l-ncu 150 $NCU --launch-skip 4 --launch-count 2 $SEC -o $O/$b-$l python3 prof.py $S/$b $l
    step $b-$l-details 60 ncu --import $O/$b-$l.ncu-rep --page details --csv
    step $b-$l-source 60 ncu --import $O/$b-$l.ncu-rep --page source --csv --print-source sass
  done
done
finish
