#!/usr/bin/env bash
# s43 run 4 (staged by hand, README.md): main's split rule aimed at one block an SM
# (kSplitKVTargetBlocksPerSM = 1, `t1`) against main's two (base), bf16 D = 128 sm_90a
# non-causal plans, the slots swapped between two processes. Timing only (the parts a
# call gets are what change; the kernels take any count up to max_splits).
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 100 $DB --bundles $S/t1 --variant base=$S/base --json $O/a.json
step b 100 $DB --bundles $S/base --variant t1=$S/t1 --json $O/b.json
finish
