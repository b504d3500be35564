#!/usr/bin/env bash
# s49 run 2 (stage1.sh's staging, with this script added): item 5's table with the K/V read
# from DRAM (decode_bench --cold: each implementation's calls cycle through copies of the
# K/V larger than the L2, as a model whose layers read their own caches), two processes.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5 --cold"
step cold-a 200 $DB --bundles $S/main90 --json $O/cold-a.json
step cold-b 200 $DB --bundles $S/main90 --json $O/cold-b.json
finish
