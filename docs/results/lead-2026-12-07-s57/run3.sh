#!/usr/bin/env bash
# s57 run 3 (H100): the combine floor (scripts/bench/combine-floor.cu, built on the build
# machine: nvcc -O3 -std=c++17 -arch=sm_90a -o build/r57/s1/combine-floor
# scripts/bench/combine-floor.cu) of a one-work-unit call, measured until now on the H200
# only, with decode_bench's GQA 8/1 B = 1 rows between for the same run's ceiling, read
# floors and ship90's kernels; two processes of each.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1 --rows 1x8192,1x32768,1x131072 --rounds 5 --read-floor"
step cf-a 200 ./combine-floor --rounds 5 --json $O/cf-a.json
step db-a 150 $DB --bundles $S/ship90 --json $O/db-a.json
step cf-b 200 ./combine-floor --rounds 5 --json $O/cf-b.json
step db-b 150 $DB --bundles $S/ship90 --json $O/db-b.json
finish
