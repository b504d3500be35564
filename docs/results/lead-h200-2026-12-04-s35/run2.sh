#!/usr/bin/env bash
# Lead's H200 run 2, thirty-fifth session (issue 17, item 5): the shipped build of the page
# kernel for 2^k >= 64 slots that looks a tile's page up once (tile90, bf16 D = 128 sm_90a)
# against main's (main90), the issue's table, three processes with the slots rotated.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 190 $DB --bundles $S/main90 --variant tile=$S/tile90 --json $O/a.json
step b 190 $DB --bundles $S/tile90 --variant main=$S/main90 --json $O/b.json
step c 190 $DB --bundles $S/main90 --variant tile=$S/tile90 --json $O/c.json
finish
