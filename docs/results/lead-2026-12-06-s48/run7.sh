#!/usr/bin/env bash
# s48 run 7 (staged by stage7.sh): the cluster merge (2 to 8 blocks) checked as a whole
# (decode_check of every sm_90a decode plan, memcheck and racecheck of the small lists, which
# hold cluster merges of 2 and 8 blocks), then timed against main's plans: the issue's rows,
# and rows whose grid x is 3 to 8 (GQA 8/1 B = 16, 24, 32, 40 at L = 8k: x = 8, 5, 4, 3;
# GQA 32/8 B = 2 and 4 at L = 8k and 32k: x = 8 and 4), the slots swapped.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --rounds 5"
step check90 300 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --json $O/check90.json
step memcheck 90 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,many
step racecheck 150 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,many
step a 120 $DB --gqa 8/1,32/8 --bundles $S/new90 --variant base=$S/base --json $O/a.json
step b 120 $DB --gqa 8/1,32/8 --bundles $S/base --variant new=$S/new90 --json $O/b.json
step c81 90 $DB --gqa 8/1 --rows 16x8192,24x8192,32x8192,40x8192 --bundles $S/new90 --variant base=$S/base --json $O/c81.json
step d81 90 $DB --gqa 8/1 --rows 16x8192,24x8192,32x8192,40x8192 --bundles $S/base --variant new=$S/new90 --json $O/d81.json
step c328 90 $DB --gqa 32/8 --rows 2x8192,4x8192,2x32768,4x32768 --bundles $S/new90 --variant base=$S/base --json $O/c328.json
step d328 90 $DB --gqa 32/8 --rows 2x8192,4x8192,2x32768,4x32768 --bundles $S/base --variant new=$S/new90 --json $O/d328.json
finish
