#!/usr/bin/env bash
# s57 run 5 (H100; stage: stage5.sh): the split kernels' grid x bounded by the cache's
# capacity (splitKVGridParts; plans only, the cubins cmp-identical to ship90's). new90
# (every sm_90a decode plan) checked as a whole, new80 (sm_80's, sm_90 cubins) quick;
# then timed against the plans before the change (ship90; old80 = new80's plans with
# the old grid, grid-edit.py) on calls of few work units and short caches, two warm
# processes with the slots swapped and one --cold; sm_80 one warm process each way.
. "$(dirname "$0")/device-run.sh"
step check90 300 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --json $O/check90.json
step check80 240 python3 -m flash_mlir.tools.decode_check --bundles $S/new80 --quick --json $O/check80.json
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rows 1x1024,1x2048,1x4096,1x8192,4x2048 --rounds 7"
step a 120 $DB --bundles $S/new90 --variant ship=$S/ship90 --json $O/a.json
step b 120 $DB --bundles $S/ship90 --variant new=$S/new90 --json $O/b.json
step cold 150 $DB --cold --bundles $S/new90 --variant ship=$S/ship90 --json $O/cold.json
step a80 120 $DB --bundles $S/new80 --variant old=$S/old80 --json $O/a80.json
step b80 120 $DB --bundles $S/old80 --variant new=$S/new80 --json $O/b80.json
finish
