#!/usr/bin/env bash
# s43 run 2 (asked for an H200; the device says which came): run 1's sm_90a time of the
# swapped loop against main's plans, the slots swapped (a, b), with each row's read floor.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 100 $DB --bundles $S/swap90 --variant base=$S/base --read-floor --json $O/a.json
step b 100 $DB --bundles $S/base --variant swap=$S/swap90 --json $O/b.json
finish
