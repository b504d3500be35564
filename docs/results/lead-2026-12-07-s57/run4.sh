#!/usr/bin/env bash
# s57 run 4 (H100; stage: stage4.sh): ms64, the bf16 D = 128 sm_90a decode plans compiled
# with max_splits = 64 instead of 128 (the combine floor of run 3: 64 blocks with 4 stages
# hand 1024-word partials over 0.4 µs sooner than 128 at GQA 8/1 B = 1 L = 128k), against
# ship90 on the rows whose calls the cap binds (GQA 8/1 B = 1), two warm processes with the
# slots swapped and one --cold.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1 --rows 1x8192,1x32768,1x131072 --rounds 7"
step a 120 $DB --bundles $S/ms64 --variant ship=$S/ship90 --json $O/a.json
step b 120 $DB --bundles $S/ship90 --variant ms64=$S/ms64 --json $O/b.json
step cold 150 $DB --cold --bundles $S/ms64 --variant ship=$S/ship90 --json $O/cold.json
finish
