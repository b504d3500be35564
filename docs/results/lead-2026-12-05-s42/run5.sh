#!/usr/bin/env bash
# s42 run 5 (asked for an H200; the device says which came): run 1's steps with the new
# runtime (libnew, main 88b9a72's), then run 2's host-time processes (main 8bdd22b's
# runtime in lib/, the new one in libnew/, alternating).
#   cp docs/results/lead-2026-12-05-s42/run5.sh build/r41/
#   run(command="bash build/r41/run5.sh", carry=["build/r41"], kind="nvidia-h200")
. "$(dirname "$0")/device-run.sh"
R=$S/../..
export FLASH_RUNTIME_LIB=$S/libnew/libflash_runtime.so
step check 200 python3 -m flash_mlir.tools.decode_check --bundles $S/pdl --json $O/check.json
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 80 $DB --bundles $S/pdl --variant base=$S/base --json $O/a.json
step b 80 $DB --bundles $S/base --variant pdl=$S/pdl --json $O/b.json
step c 80 $DB --bundles $S/pdl --variant base=$S/base --between --json $O/c.json
step d 80 $DB --bundles $S/base --variant pdl=$S/pdl --between --json $O/d.json
for bs in 4 8; do
  step serve$bs 120 python3 $R/scripts/gpu/serve-check.py --bundles $S/pdl --batch $bs --json $O/serve$bs.json
done
HT="python3 $R/scripts/bench/decode-host-time.py $S/pdl"
for i in 1 2; do
  FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so step host-main$i 60 $HT --label main$i --json $O/host-main$i.json
  FLASH_RUNTIME_LIB=$S/libnew/libflash_runtime.so step host-new$i 60 $HT --label new$i --json $O/host-new$i.json
done
finish
