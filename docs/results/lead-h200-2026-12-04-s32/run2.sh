#!/usr/bin/env bash
# Lead's H200 run 2, thirty-second session (issue 17, item 5): decode_bench --read-floor,
# main 9913b3c's bf16 D = 128 sm_90a plans (main90) with each row's read floor (a pure
# read of the same K/V bytes, contiguous and through the paged forms' block tables).
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5 --read-floor"
step rf-a 200 $DB --bundles $S/main90 --json $O/rf-a.json
step rf-orders 300 $DB --bundles $S/main90 --page-order shuffled,sequential,local --json $O/rf-orders.json
step rf-cold 200 $DB --cold --bundles $S/main90 --json $O/rf-cold.json
finish
