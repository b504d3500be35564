#!/usr/bin/env bash
# s42 run 1, staged by ../lead-2026-12-05-s41-pdl/stage.sh (build/r41 from main 8bdd22b:
# pdl = every sm_90a decode plan of main, base = main 5e6e37a's bf16 D = 128 plans,
# plant = the split kernels' waits removed), this script copied next to it:
#   cp docs/results/lead-2026-12-05-s42/run1.sh build/r41/ && run(command="bash build/r41/run1.sh", carry=["build/r41"])
# The forty-first session's run 4 (its run3.sh) on the device this session gets, then the
# serving loop (scripts/gpu/serve-check.py) on main's plans at batch 1, 4 (B·Hkv = 2, 8:
# the separate merge's split kernels, launched behind the model's kernels) and 8 (16
# work units: the fused form).
. "$(dirname "$0")/device-run.sh"
R=$S/../..
step check 200 python3 -m flash_mlir.tools.decode_check --bundles $S/pdl --json $O/check.json
step plant 50 python3 -m flash_mlir.tools.decode_check --bundles $S/plant --only chain --json $O/plant.json
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 80 $DB --bundles $S/pdl --variant base=$S/base --json $O/a.json
step b 80 $DB --bundles $S/base --variant pdl=$S/pdl --json $O/b.json
step c 80 $DB --bundles $S/pdl --variant base=$S/base --between --json $O/c.json
step d 80 $DB --bundles $S/base --variant pdl=$S/pdl --between --json $O/d.json
for bs in 1 4 8; do
  step serve$bs 120 python3 $R/scripts/gpu/serve-check.py --bundles $S/pdl --batch $bs --json $O/serve$bs.json
done
step memcheck 60 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/pdl --small --only paged,chain
step racecheck 60 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/pdl --small --only paged,chain
finish
