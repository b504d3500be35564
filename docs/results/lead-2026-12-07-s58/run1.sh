#!/usr/bin/env bash
# s58 run 1: item 5's table at D = 128 for main's plans (main90: the grid bounded by the
# cache's capacity, which the fifty-seventh session timed only on the rows it changed)
# with every row's read floors, two warm processes and one --cold; then D = 64 and
# D = 256, one warm process each.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step rf-a 180 $DB --read-floor --bundles $S/main90 --json $O/rf-a.json
step rf-b 180 $DB --read-floor --bundles $S/main90 --json $O/rf-b.json
step rf-cold 240 $DB --cold --read-floor --bundles $S/main90 --json $O/rf-cold.json
step d64 120 $DB --head-dim 64 --bundles $S/main90 --json $O/d64.json
step d256 150 $DB --head-dim 256 --bundles $S/main90 --json $O/d256.json
finish
