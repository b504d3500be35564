#!/usr/bin/env bash
# Lead's H200 run 4, thirty-first session (issue 17, item 5): sm_90a's paged plans with the
# fused split kernels for S = 16 and 64 inside them (fused-page-sizes, the launch plan's
# grids choose the kernel by S). new90full: the sm_90a decode set as compile ships it now
# (48 plans); new90 / main90: bf16 D = 128 (main90: main 7d3a0a1's plans); plant90:
# new90full with the two page kernels' eq(S, .) swapped (plant_grids.py: the S = 16
# kernel runs S = 64 calls and the other way round).
. "$(dirname "$0")/device-run.sh"
DC="python3 -m flash_mlir.tools.decode_check"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step check90 300 $DC --bundles $S/new90full --json $O/check90.json
step plant 200 $DC --bundles $S/plant90 --only paged --json $O/plant.json
step ab-a 120 $DB --bundles $S/main90 --variant new=$S/new90 --json $O/ab-a.json
step ab-b 120 $DB --bundles $S/new90 --variant main=$S/main90 --json $O/ab-b.json
step cold-a 120 $DB --cold --bundles $S/main90 --variant new=$S/new90 --json $O/cold-a.json
step memcheck 200 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode $DC --bundles $S/new90full --small --only paged,many,graph
step racecheck 200 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode $DC --bundles $S/new90full --small --only paged
finish
