#!/usr/bin/env bash
# s49 run 1 (staged by stage1.sh): main's sm_90a decode plans (e29c956: PTX, cubins and plans
# byte-identical to d2e426b's, the forty-eighth session's end) checked as a whole on whatever
# GPU the device lends (the pair merge was checked on an H100 only) and item 5's table timed
# in two processes, for decode_goals.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step check90 240 python3 -m flash_mlir.tools.decode_check --bundles $S/main90 --json $O/check90.json
step a 120 $DB --bundles $S/main90 --json $O/a.json
step b 120 $DB --bundles $S/main90 --json $O/b.json
finish
