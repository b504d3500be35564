#!/usr/bin/env bash
# Lead's H200 run 10, thirty-second session: after the review's refactor (decode_check's one
# plan-copying helper; decode_bench's read_floor taking B): smoke runs of both tools.
. "$(dirname "$0")/device-run.sh"
DC="python3 -m flash_mlir.tools.decode_check"
step bench 150 python3 -m flash_mlir.tools.decode_bench --gqa 32/8 --rows 8x32768 --rounds 3 --read-floor --bundles $S/main90 --json $O/bench.json
step check 150 $DC --bundles $S/main90full --small --only paged,anypage --json $O/check.json
step plant 150 $DC --bundles $S/main90full --plant table-row --only paged --small
step plant-sms 150 $DC --bundles $S/main90full --plant merge-sms --only many --small
finish
