#!/usr/bin/env bash
# Lead's H200 run 7, thirty-second session (issue 17, item 5): EXPERIMENT whole16.diff
# (kSplitKVWholeNum 15 -> 16: a call is cut into parts unless its work units reach the SM
# count; GQA 8/1 B = 128 gets 2 parts a sequence, 256 blocks, instead of 1), bf16 D = 128
# sm_90a non-causal plans (w16) against main 9913b3c's (main90), GQA 8/1.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1 --rounds 5"
step w-a 150 $DB --bundles $S/main90 --variant w16=$S/w16 --json $O/w-a.json
step w-b 150 $DB --bundles $S/main90 --variant w16=$S/w16 --json $O/w-b.json
step w-cold 150 $DB --cold --bundles $S/main90 --variant w16=$S/w16 --json $O/w-cold.json
finish
