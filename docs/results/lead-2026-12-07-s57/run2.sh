#!/usr/bin/env bash
# s57 run 2, on the H200 (the issue's machine; stage1.sh's folder packed again with this
# script): item 5's table at D = 128 for ship90 with every row's read floors, two warm
# processes and one --cold, as run 1's rf steps.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step rf-a 180 $DB --read-floor --bundles $S/ship90 --json $O/rf-a.json
step rf-b 180 $DB --read-floor --bundles $S/ship90 --json $O/rf-b.json
step rf-cold 240 $DB --cold --read-floor --bundles $S/ship90 --json $O/rf-cold.json
finish
