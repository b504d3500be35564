#!/usr/bin/env bash
# s48 run 3 (staged by stage3.sh): the cluster merge (cl) against main's plans (base) on the rows
# whose sequences have exactly two parts (grid x = 2 on 132 SMs; the cl kernels are right only
# there): GQA 8/1 B = 48 and 64 at L = 8k, B = 64 L = 1k; GQA 32/8 B = 8 L = 8k and 32k. Two
# processes a group, the slots swapped.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --rounds 5"
step a81 150 $DB --gqa 8/1 --rows 48x8192,64x8192,64x1024 --bundles $S/base --variant cl=$S/cl --json $O/a81.json
step b81 150 $DB --gqa 8/1 --rows 48x8192,64x8192,64x1024 --bundles $S/cl --variant base=$S/base --json $O/b81.json
step a328 200 $DB --gqa 32/8 --rows 8x8192,8x32768 --bundles $S/base --variant cl=$S/cl --json $O/a328.json
step b328 200 $DB --gqa 32/8 --rows 8x8192,8x32768 --bundles $S/cl --variant base=$S/base --json $O/b328.json
finish
