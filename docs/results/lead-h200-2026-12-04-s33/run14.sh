#!/usr/bin/env bash
# Lead's H200 run 14, thirty-third session (issue 17, item 5): where a short one-work-unit
# call's time goes with the shipped rule. min2 (the shipped bf16 D = 128 sm_90a plans, no
# causal, no LSE) against min2nm (the same with the merge kernel removed from the plans'
# JSON: the split kernel alone; its results are wrong, timing only), and main90 / main90nm
# (main's rule, the same way), GQA 8/1 B = 1 rows, two processes.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1 --rows 1x8192,1x32768,1x131072 --rounds 5"
V="--variant nm=$S/min2nm --variant main=$S/main90 --variant mainnm=$S/main90nm"
step a 150 $DB --bundles $S/min2 $V --json $O/a.json
step b 150 $DB --bundles $S/min2 $V --json $O/b.json
finish
