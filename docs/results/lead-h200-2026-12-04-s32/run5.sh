#!/usr/bin/env bash
# Lead's H200 run 5, thirty-second session (issue 17, item 5): EXPERIMENT, sm_90a paged plans
# (bf16 D = 128, non-causal, no LSE) whose _s16/_s64 kernels read whole pages of their kv-heads:
# ph8 (FLASH_DECODE_EXP=pageheads: a block of 8 warps for all 8 kv-heads of a part, one block
# an SM) and ph4 (pageheads4: 4 warps, 4 kv-heads, two blocks an SM), both patched by
# patch_pageheads.py, timed against main 9913b3c's plans (main90) on GQA 32/8.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 32/8 --rounds 5 --read-floor"
step ph-a 200 $DB --bundles $S/main90 --variant ph8=$S/ph8 --variant ph4=$S/ph4 --json $O/ph-a.json
step ph-b 200 $DB --bundles $S/main90 --variant ph4=$S/ph4 --variant ph8=$S/ph8 --json $O/ph-b.json
step ph-cold 200 $DB --cold --bundles $S/main90 --variant ph8=$S/ph8 --variant ph4=$S/ph4 --json $O/ph-cold.json
finish
