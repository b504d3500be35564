#!/usr/bin/env bash
# s44 run 3 (run 2's stage, build/r44/s2): the shipped rule's bf16 D = 128 sm_90a plans
# (new90's D = 128 files are the shipped ones, cmp-checked) against main's rule (base90),
# the slots swapped between two processes, for the H200 (the goals' machine).
#   run(command="tar xJf build/r44/s2.tar.xz -C build/r44 &&
#       cp docs/results/lead-2026-12-05-s44-t1/run3.sh build/r44/s2/ && bash build/r44/s2/run3.sh",
#       carry=["build/r44/s2.tar.xz"], kind="nvidia-h200")
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 100 $DB --bundles $S/new90 --variant base=$S/base90 --json $O/a.json
step b 100 $DB --bundles $S/base90 --variant one=$S/new90 --json $O/b.json
finish
