#!/usr/bin/env bash
# Lead's H200 run 3, thirty-fourth session (issue 17, item 5): the read floors of the GQA 8/1
# rows whose paged form misses a goal (B = 8 L = 32k, B = 1 L = 8k, B = 64 L = 8k, B = 128 L = 2k),
# and ncu of main's separate split kernels at GQA 8/1 B = 8 L = 32k (contiguous; paged S = 16 on
# shuffled pages holding the same keys).
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1 --rows 8x32768,1x8192,64x8192,128x2048 --rounds 5 --read-floor --bundles $S/main90"
step rf-a 200 $DB --json $O/rf-a.json
step rf-b 200 $DB --json $O/rf-b.json
NCU="ncu --clock-control none --cache-control none -k regex:_separate"
SEC="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section InstructionStats --section LaunchStats --section Occupancy"
step ncu 150 $NCU --launch-skip 4 --launch-count 2 $SEC -o $O/b8 python3 $S/prof34.py $S/main90 8 32768
step details 60 ncu --import $O/b8.ncu-rep --page details --csv
finish
