#!/usr/bin/env bash
# s53 run 1, in the order of their worth: the three L2-hint variants of main's bf16 D = 128
# paged plan (stage1.sh) against main's in the same rounds, item 5's rows warm, in three
# processes with the slots rotated, then two with the K/V read from DRAM (--cold); the
# variants' plans checked (decode_check, paged and graph checks).
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 150 $DB --bundles $S/main90 --variant el=$S/el --variant ef=$S/ef --variant elef=$S/elef --json $O/a.json
step b 150 $DB --bundles $S/elef --variant main=$S/main90 --variant el=$S/el --variant ef=$S/ef --json $O/b.json
step c 150 $DB --bundles $S/el --variant elef=$S/elef --variant ef=$S/ef --variant main=$S/main90 --json $O/c.json
step cold-a 240 $DB --cold --bundles $S/main90 --variant el=$S/el --variant ef=$S/ef --variant elef=$S/elef --json $O/cold-a.json
step cold-b 240 $DB --cold --bundles $S/elef --variant main=$S/main90 --variant el=$S/el --variant ef=$S/ef --json $O/cold-b.json
step check 200 python3 -m flash_mlir.tools.decode_check --bundles $S/elef --only paged,anypage,graph,capture --json $O/check-elef.json
finish
