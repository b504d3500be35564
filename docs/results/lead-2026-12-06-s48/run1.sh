#!/usr/bin/env bash
# s48 run 1 (staged by stage1.sh): does a grid that leaves SMs idle cost time? GQA 8/1 rows of
# 120/128/132 blocks (B = 60, 64, 66 at L = 8k: 2 parts a sequence; B = 120, 128, 132 at
# L = 2k: 1 part) and GQA 32/8 rows of 3.88 and 4 waves (B = 64, 66 at L = 8k) and 7.76 and
# 8 (B = 128, 132 at L = 2k), with the read floors, two processes.
. "$(dirname "$0")/device-run.sh"
R81="60x8192,64x8192,66x8192,120x2048,128x2048,132x2048"
R328="64x8192,66x8192,128x2048,132x2048"
DB="python3 -m flash_mlir.tools.decode_bench --rounds 5 --read-floor --bundles $S/main90"
step a81 150 $DB --gqa 8/1 --rows $R81 --json $O/a81.json
step a328 200 $DB --gqa 32/8 --rows $R328 --json $O/a328.json
step b81 150 $DB --gqa 8/1 --rows $R81 --json $O/b81.json
finish
