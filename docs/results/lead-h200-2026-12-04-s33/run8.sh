#!/usr/bin/env bash
# Lead's H200 run 8, thirty-third session (issue 17, item 5): the split rule with parts of at
# least 2 tiles (kSplitKVMinTilesPerSplit = 2, a temporary change; min2) against main's 4
# (main90), bf16 D = 128 sm_90a plans, both slot orders, and decode_check of min2.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step ab-a 200 $DB --bundles $S/main90 --variant min2=$S/min2 --json $O/ab-a.json
step ab-b 200 $DB --bundles $S/min2 --variant main=$S/main90 --json $O/ab-b.json
step check 150 python3 -m flash_mlir.tools.decode_check --bundles $S/min2
finish
