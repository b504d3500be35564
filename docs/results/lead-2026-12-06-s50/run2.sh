#!/usr/bin/env bash
# s50 run 2 (run 1's staging with v3_90 and r1_90 added: bf16 D = 256 sm_90a decode plans of
# flash-opt with v3.diff (the K/V stages of a kernel two of which do not fit an SM taken from
# the whole SM: 3 stages, and so one block an SM) and with r1.diff (2 stages, the split rule
# aiming at one block an SM for 512-byte rows)): item 5's table at D = 64 (main, two warm
# processes) and at D = 256 (main and the two variants in the same rounds, three processes,
# each in the first slot once); the variants' plans checked.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step d64-a 150 $DB --head-dim 64 --bundles $S/main90 --json $O/d64-a.json
step d64-b 150 $DB --head-dim 64 --bundles $S/main90 --json $O/d64-b.json
step d256-a 240 $DB --head-dim 256 --bundles $S/main90 --variant v3=$S/v3_90 --variant r1=$S/r1_90 --json $O/d256-a.json
step d256-b 240 $DB --head-dim 256 --bundles $S/v3_90 --variant main=$S/main90 --variant r1=$S/r1_90 --json $O/d256-b.json
step d256-c 240 $DB --head-dim 256 --bundles $S/r1_90 --variant v3=$S/v3_90 --variant main=$S/main90 --json $O/d256-c.json
step check-v3 200 python3 -m flash_mlir.tools.decode_check --bundles $S/v3_90 --json $O/check-v3.json
step check-r1 200 python3 -m flash_mlir.tools.decode_check --bundles $S/r1_90 --json $O/check-r1.json
finish
