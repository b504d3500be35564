#!/usr/bin/env bash
# s47 run 1 (staged by stage.sh): the page-slice L2 prefetch at distances 0, 2, 4 against
# main's plans, two processes with the slots swapped; a correctness check of pf0 and pf2.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 32/8,8/1 --rounds 5"
step check 120 python3 -m flash_mlir.tools.decode_check --bundles $S/pf2 --small --only paged,anypage
step a 170 $DB --bundles $S/base --variant pf0=$S/pf0 --variant pf2=$S/pf2 --variant pf4=$S/pf4 --json $O/a.json
step b 170 $DB --bundles $S/pf2 --variant base=$S/base --variant pf0=$S/pf0 --variant pf4=$S/pf4 --json $O/b.json
finish
