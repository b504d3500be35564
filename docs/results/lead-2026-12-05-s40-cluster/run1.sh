#!/usr/bin/env bash
# s40 run 1 (staged by stage.sh in this folder): the paged and contiguous split kernels
# launched in clusters of 2, 4, 8 blocks along grid y (the kv-heads of one part of one
# sequence), PTX otherwise main's; GQA 32/8 only; two processes, the slots swapped.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 32/8 --rounds 5"
step a 280 $DB --bundles $S/base --variant cl2=$S/cl2 --variant cl4=$S/cl4 --variant cl8=$S/cl8 --json $O/a.json
step b 280 $DB --bundles $S/cl8 --variant base=$S/base --variant cl4=$S/cl4 --variant cl2=$S/cl2 --json $O/b.json
finish
