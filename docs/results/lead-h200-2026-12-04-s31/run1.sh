#!/usr/bin/env bash
# Lead's H200 run 1, thirty-first session (issue 17, item 5): paged plans for pages of 16
# slots (variant s16, --flash-to-ptx fixed-page-size: S a constant of the fused split
# kernel). new90full: every sm_90a decode plan as compile ships them now (48 + 24 s16);
# new90 / main90: bf16 D = 128 (main90 is main's 7d3a0a1 compiler: no s16 plans); plant90:
# new90full's plans for any S plus s16 plans from a flash-opt whose constant is 2·S (a
# planted bug: decode_check must fail the S = 16 cases the fused kernel runs, pass the
# plan=any-S reruns).
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
