#!/usr/bin/env bash
# s46 run 3 (stage s1; run2 was run by hand, README.md): the rows read from DRAM, not from
# the L2 (--cold: each call of a graph reads its own copy of the K/V), main's plans against
# the plans before the forty-fourth session's rule, the slots swapped: whether paged stays
# within 5% of contiguous where the K/V cannot stay in the L2 between calls.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5 --cold"
step cold_a 150 $DB --bundles $S/new90 --variant pre=$S/pre90 --json $O/cold_a.json
step cold_b 150 $DB --bundles $S/pre90 --variant new=$S/new90 --json $O/cold_b.json
finish
