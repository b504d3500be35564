#!/usr/bin/env bash
# Lead's H200 run 2, thirty-fourth session (issue 17, item 5): main's sm_90a decode plans with
# an L2 prefetch size on every cp.async (.L2::128B: l2_128, .L2::256B: l2_256; the PTX edited,
# ptxas as compile runs it), the issue's table, three processes with the slots rotated.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 200 $DB --bundles $S/main90 --variant l2_128=$S/l2_128 --variant l2_256=$S/l2_256 --json $O/a.json
step b 200 $DB --bundles $S/l2_128 --variant l2_256=$S/l2_256 --variant main=$S/main90 --json $O/b.json
step c 200 $DB --bundles $S/l2_256 --variant main=$S/main90 --variant l2_128=$S/l2_128 --json $O/c.json
finish
