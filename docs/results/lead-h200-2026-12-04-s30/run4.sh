#!/usr/bin/env bash
# Lead's H200 run 4, thirtieth session (issue 17, item 5): the separate merge's paged split
# kernel (sm_90a) with grouped byte offsets (`grp`: one lookup and one 32x32->64-bit
# multiply-add a 16-key group, one 64-bit add a copy from per-thread bases) against main.
# g90full: every dtype and head dimension of the new sm_90a bundles; main90 / g90: bf16
# D = 128; plant90: g90full's paged plans with the bases of a group's passes swapped (the
# check must fail).
. "$(dirname "$0")/device-run.sh"
DC="python3 -m flash_mlir.tools.decode_check"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step check90 200 $DC --bundles $S/g90full --json $O/check90.json
step plant 200 $DC --bundles $S/plant90 --only paged --json $O/plant.json
step ab-a 120 $DB --bundles $S/main90 --variant grp=$S/g90 --json $O/ab-a.json
step ab-b 120 $DB --bundles $S/g90 --variant main=$S/main90 --json $O/ab-b.json
step cold-a 120 $DB --cold --bundles $S/main90 --variant grp=$S/g90 --json $O/cold-a.json
step ab-c 120 $DB --bundles $S/main90 --variant grp=$S/g90 --json $O/ab-c.json
step memcheck 200 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode $DC --bundles $S/g90full --small --only paged,split,many
finish
