#!/usr/bin/env bash
# s52 run 1, its steps in the order of their worth, so that a run cut short keeps the most:
# l2_64 (main's bf16 D = 64 plans with `.L2::256B` on every cp.async) against main's, two
# processes with the slots swapped; item 5's table (D = 128) for main 7a49754's sm_90a
# decode plans, two warm processes and two with the K/V read from DRAM (--cold); the plans
# checked as a whole (decode_check); the table at D = 64 (two processes), with the read
# floors at D = 64 (S = 64 only: the floor reads items of at least 4 KiB a tensor, and 16
# rows of 128 bytes are 2 KiB) and D = 128; the table at D = 256 (two processes).
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step l2a 120 $DB --head-dim 64 --bundles $S/main90 --variant l2=$S/l2_64 --json $O/l2a.json
step l2b 120 $DB --head-dim 64 --bundles $S/l2_64 --variant main=$S/main90 --json $O/l2b.json
step a 120 $DB --bundles $S/main90 --json $O/a.json
step b 120 $DB --bundles $S/main90 --json $O/b.json
step cold-a 200 $DB --cold --bundles $S/main90 --json $O/cold-a.json
step cold-b 200 $DB --cold --bundles $S/main90 --json $O/cold-b.json
step check90 240 python3 -m flash_mlir.tools.decode_check --bundles $S/main90 --json $O/check90.json
step d64-a 120 $DB --head-dim 64 --bundles $S/main90 --json $O/d64-a.json
step d64-b 120 $DB --head-dim 64 --bundles $S/main90 --json $O/d64-b.json
step rf64 180 $DB --head-dim 64 --page-sizes 64 --read-floor --bundles $S/main90 --json $O/rf64.json
step rf 180 $DB --read-floor --bundles $S/main90 --json $O/rf.json
step d256-a 120 $DB --head-dim 256 --bundles $S/main90 --json $O/d256-a.json
step d256-b 120 $DB --head-dim 256 --bundles $S/main90 --json $O/d256-b.json
finish
