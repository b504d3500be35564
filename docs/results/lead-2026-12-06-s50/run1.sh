#!/usr/bin/env bash
# s50 run 1: main's sm_90a decode plans (96b66c9; their cubins and plans those of the
# forty-ninth session's main90, no file under lib/ or include/ changed since e29c956)
# checked as a whole and item 5's table timed on whatever GPU the device lends: two warm
# processes and two with the K/V read from DRAM (--cold), for decode_goals.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step check90 240 python3 -m flash_mlir.tools.decode_check --bundles $S/main90 --json $O/check90.json
step a 120 $DB --bundles $S/main90 --json $O/a.json
step b 120 $DB --bundles $S/main90 --json $O/b.json
step cold-a 200 $DB --cold --bundles $S/main90 --json $O/cold-a.json
step cold-b 200 $DB --cold --bundles $S/main90 --json $O/cold-b.json
finish
