#!/usr/bin/env bash
# s57 run 1, its steps in the order of their worth: the shipped plans (ship90) against the
# plans before the per-call L2 policy (main90) at D = 64 and D = 256, which the fifty-sixth
# session did not time (two warm processes each, the slots swapped, and one --cold); then
# item 5's table at D = 128 for ship90 with every row's read floors (--read-floor: a pure
# reader of the same K/V, contiguous, a kv-head's rows through the block table, and whole
# pages), two warm processes and one --cold.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step d64-a 120 $DB --head-dim 64 --bundles $S/ship90 --variant main=$S/main90 --json $O/d64-a.json
step d64-b 120 $DB --head-dim 64 --bundles $S/main90 --variant ship=$S/ship90 --json $O/d64-b.json
step rf-a 180 $DB --read-floor --bundles $S/ship90 --json $O/rf-a.json
step rf-b 180 $DB --read-floor --bundles $S/ship90 --json $O/rf-b.json
step rf-cold 240 $DB --cold --read-floor --bundles $S/ship90 --json $O/rf-cold.json
step d256-a 150 $DB --head-dim 256 --bundles $S/ship90 --variant main=$S/main90 --json $O/d256-a.json
step d256-b 150 $DB --head-dim 256 --bundles $S/main90 --variant ship=$S/ship90 --json $O/d256-b.json
step d64-cold 150 $DB --cold --head-dim 64 --bundles $S/ship90 --variant main=$S/main90 --json $O/d64-cold.json
step d256-cold 200 $DB --cold --head-dim 256 --bundles $S/ship90 --variant main=$S/main90 --json $O/d256-cold.json
finish
