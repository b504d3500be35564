#!/usr/bin/env bash
# Lead's H200 run 4, thirty-second session (issue 17, item 5): EXPERIMENT FLASH_DECODE_EXP=pageheads,
# sm_90a paged plans (bf16 D = 128, non-causal, no LSE) whose _s16/_s64 kernels take every
# kv-head of a part in one block of 8 warps and copy whole pages (ph90, patched by
# patch_pageheads.py), timed against main 9913b3c's plans (main90) on GQA 32/8.
# (ph90 was built from a first form of pageheads.diff: 8 heads only, no head groups.)
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 32/8 --rounds 5 --read-floor"
step ph-a 200 $DB --bundles $S/main90 --variant ph=$S/ph90 --json $O/ph-a.json
step ph-b 200 $DB --bundles $S/main90 --variant ph=$S/ph90 --json $O/ph-b.json
step ph-cold 200 $DB --cold --bundles $S/main90 --variant ph=$S/ph90 --json $O/ph-cold.json
finish
