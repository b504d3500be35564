#!/usr/bin/env bash
# Lead's H200 run 1, thirty-third session (issue 17, item 5): the combine floor
# (scripts/bench/combine-floor.cu: a pure read of a GQA 8/1 B = 1 row's K/V by many
# blocks, then the least cross-block step that makes one result depend on all of it),
# and decode_bench on the GQA 8/1 B = 1 rows with the read floor, main's bf16 D = 128
# sm_90a plans (main90), for the same run's ceilings and kernels.
# combine-floor as of this run: the read, last and pdl modes only, and also "last w1024"
# (one block reading every part's 4 KB: 66 us at 128k, dropped after this run).
. "$(dirname "$0")/device-run.sh"
step cf-a 200 ./combine-floor --rounds 5 --json $O/cf-a.json
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1 --rows 1x8192,1x32768,1x131072 --rounds 5 --read-floor"
step db-a 150 $DB --bundles $S/main90 --json $O/db-a.json
step cf-b 200 ./combine-floor --rounds 5 --json $O/cf-b.json
step db-cold 150 $DB --cold --bundles $S/main90 --json $O/db-cold.json
finish
