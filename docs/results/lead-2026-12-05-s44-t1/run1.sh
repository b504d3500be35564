#!/usr/bin/env bash
# s44 run 1 (staged by stage.sh): the split rule aimed at one block an SM (`t1`:
# kSplitKVTargetBlocksPerSM = 1 in include/flash/Target/SplitKV.h) against main's two
# (`base`), bf16 D = 128 non-causal plans, sm_90a and sm_80 (sm_90 cubins), each pair
# in two processes with the slots swapped; t1's plans checked first. Then `t1s6`: the same
# rule with the K/V stages sized for one block an SM (the whole SM's shared memory, less
# 1 KiB: 6 stages at D = 128 bf16 on sm_90a, 196 KiB), sm_90a only.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step check90 170 python3 -m flash_mlir.tools.decode_check --bundles $S/t1
step check80 120 python3 -m flash_mlir.tools.decode_check --bundles $S/t1_80
step a 100 $DB --bundles $S/t1 --variant base=$S/base --json $O/a.json
step b 100 $DB --bundles $S/base --variant t1=$S/t1 --json $O/b.json
step c 100 $DB --bundles $S/t1_80 --variant base=$S/base80 --json $O/c.json
step d 100 $DB --bundles $S/base80 --variant t1=$S/t1_80 --json $O/d.json
step check6 170 python3 -m flash_mlir.tools.decode_check --bundles $S/t1s6
step e 100 $DB --bundles $S/t1s6 --variant base=$S/base --json $O/e.json
step f 100 $DB --bundles $S/base --variant t1s6=$S/t1s6 --json $O/f.json
finish
