#!/usr/bin/env bash
# Lead's H200 run 3, thirty-second session (issue 17, item 5): decode_bench --read-floor with
# the whole-page read floor ('read floor S=.. pages', Hkv > 1), main 9913b3c's bf16 D = 128
# sm_90a plans (main90); two warm processes and a cold one.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 32/8,8/1 --rounds 5 --read-floor"
step rf-a 200 $DB --bundles $S/main90 --json $O/rf-a.json
step rf-b 200 $DB --bundles $S/main90 --json $O/rf-b.json
step rf-cold 200 $DB --cold --bundles $S/main90 --json $O/rf-cold.json
finish
