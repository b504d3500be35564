#!/usr/bin/env bash
# Lead's H200 run 1, thirty-fourth session (issue 17, item 5): sm_80 plans (sm_90 cubins) with
# the fused merge of 17-32 parts in two levels (d16) or in one batch (b32) against main's
# (two batches of 16), and sm_90a plans whose separate merge stops at 4 work units (sep4).
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench"
R80="--gqa 8/1,32/8 --rows 1x2048,1x3072,1x4096,2x4096,4x4096,1x8192 --rounds 5"
R90="--gqa 8/1,32/8 --rows 5x32768,6x16384,8x8192,8x32768,1x8192,1x32768,1x131072 --rounds 5"
step s80-a 200 $DB $R80 --bundles $S/s80main --variant d16=$S/s80d16 --variant b32=$S/s80b32 --json $O/s80-a.json
step s80-b 200 $DB $R80 --bundles $S/s80b32 --variant main=$S/s80main --variant d16=$S/s80d16 --json $O/s80-b.json
step s90-a 200 $DB $R90 --bundles $S/main90 --variant sep4=$S/sep4 --json $O/s90-a.json
step s90-b 200 $DB $R90 --bundles $S/sep4 --variant main=$S/main90 --json $O/s90-b.json
finish
