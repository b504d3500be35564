#!/usr/bin/env bash
# Lead's H200 run 7, thirty-seventh session (issue 17, item 5): where the landed build's paged
# time goes on the bandwidth rows: its bf16 D = 128 plans (fin1) with the pages shuffled over
# the pool (the issue's table), in key order (sequential) and shuffled within 2 MiB spans
# (local), in the same rounds as cuDNN and FA2, three processes.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5 --page-order shuffled,sequential,local"
step a 150 $DB --bundles $S/fin1 --json $O/a.json
step b 150 $DB --bundles $S/fin1 --json $O/b.json
step c 150 $DB --bundles $S/fin1 --json $O/c.json
finish
