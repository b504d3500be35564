#!/usr/bin/env bash
# Lead's H200 run 3, thirty-fifth session (issue 17, item 5): the separate merge's paged split
# kernel built for pages of 64 slots with the one-lookup-a-tile form and no grouped path
# (sep64, FLASH_DECODE_EXP=sep64: right at S = 64 only) against main (tile90), S = 64,
# three processes with the slots rotated.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5 --page-sizes 64"
step a 150 $DB --bundles $S/tile90 --variant sep64=$S/sep64 --json $O/a.json
step b 150 $DB --bundles $S/sep64 --variant main=$S/tile90 --json $O/b.json
step c 150 $DB --bundles $S/tile90 --variant sep64=$S/sep64 --json $O/c.json
step check 100 python3 -m flash_mlir.tools.decode_check --bundles $S/sep64 --only paged,many,peaks --page-sizes 64
finish
