#!/usr/bin/env bash
# s47 run 2 (staged by stage2.sh): the per-line page-slice prefetch (pfl0, pfl2) against
# main's plans on the bandwidth rows, two processes with the slots swapped.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 32/8,8/1 --rows 1x131072,8x32768,64x8192,128x2048 --rounds 5"
step a 150 $DB --bundles $S/base --variant pfl0=$S/pfl0 --variant pfl2=$S/pfl2 --json $O/a.json
step b 150 $DB --bundles $S/pfl0 --variant base=$S/base --variant pfl2=$S/pfl2 --json $O/b.json
finish
