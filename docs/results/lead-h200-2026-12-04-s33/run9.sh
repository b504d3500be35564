#!/usr/bin/env bash
# Lead's H200 run 9, thirty-third session (issue 17, item 5): parts of at least 2 tiles (min2)
# against main's 4 on the rows min2 changes besides GQA 8/1 B = 1 L = 8k: shorter single
# sequences (separate merge on sm_90a) and calls of 9-32 work units with short sequences
# (the fused merge), sm_90a plans (main90, min2) and sm_80 plans as sm_90 cubins (s80main,
# s80min2: the fused merge on every call), both slot orders.
. "$(dirname "$0")/device-run.sh"
R90="--gqa 8/1,32/8 --rows 1x2048,1x4096,1x8192,1x16384,2x8192,4x4096,16x1024,16x2048 --rounds 5"
R80="--gqa 8/1,32/8 --rows 1x2048,1x4096,1x8192,1x16384,16x1024,16x2048 --rounds 5"
DB="python3 -m flash_mlir.tools.decode_bench"
step s90-a 200 $DB $R90 --bundles $S/main90 --variant min2=$S/min2 --json $O/s90-a.json
step s90-b 200 $DB $R90 --bundles $S/min2 --variant main=$S/main90 --json $O/s90-b.json
step s80-a 200 $DB $R80 --bundles $S/s80main --variant min2=$S/s80min2 --json $O/s80-a.json
step s80-b 200 $DB $R80 --bundles $S/s80min2 --variant main=$S/s80main --json $O/s80-b.json
finish
