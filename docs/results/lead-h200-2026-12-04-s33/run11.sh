#!/usr/bin/env bash
# Lead's H200 run 11, thirty-third session (issue 17, item 5): min2 against main's split rule
# with --cold (every call of a graph reads its own K/V copy: rows below the L2 read from
# memory), both slot orders.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5 --cold"
step cold-a 200 $DB --bundles $S/main90 --variant min2=$S/min2 --json $O/cold-a.json
step cold-b 200 $DB --bundles $S/min2 --variant main=$S/main90 --json $O/cold-b.json
finish
