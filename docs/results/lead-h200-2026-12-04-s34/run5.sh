#!/usr/bin/env bash
# Lead's H200 run 5, thirty-fourth session (issue 17, item 5): main's sm_90a decode plans
# compiled with deeper K/V rings (flash-to-ptx stages=4: st4, stages=6: st6; main's model
# takes 3 for two blocks an SM), the issue's table, three processes with the slots rotated.
# Only the rows of one block an SM are a fair comparison (the split rule still aims at two).
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 200 $DB --bundles $S/main90 --variant st4=$S/st4 --variant st6=$S/st6 --json $O/a.json
step b 200 $DB --bundles $S/st4 --variant st6=$S/st6 --variant main=$S/main90 --json $O/b.json
step c 200 $DB --bundles $S/st6 --variant main=$S/main90 --variant st4=$S/st4 --json $O/c.json
finish
