#!/usr/bin/env bash
# Lead's H200 run 5, thirty-third session (issue 17, item 5): the combine floor as committed
# (scripts/bench/combine-floor.cu; new since run 4: the cp.async stream with one word of
# partials a block and the pdl merge, with and without the length first), two processes,
# and decode_bench on the GQA 8/1 B = 1 rows between them for the same run's ceilings and
# main's kernels (main90: main's bf16 D = 128 sm_90a plans).
. "$(dirname "$0")/device-run.sh"
step cf-a 200 ./combine-floor --rounds 5 --json $O/cf-a.json
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1 --rows 1x8192,1x32768,1x131072 --rounds 5 --read-floor"
step db-a 150 $DB --bundles $S/main90 --json $O/db-a.json
step cf-b 200 ./combine-floor --rounds 5 --json $O/cf-b.json
finish
