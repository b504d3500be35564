#!/usr/bin/env bash
# Lead's H200 run 1, thirtieth session (issue 17, item 5): the paged kernels' K/V copies
# addressed in bytes (one 32x32->64-bit multiply-add a row and tensor, `new`) against
# main's element offsets (`main`). new90full / new80full: every dtype and head dimension
# of the new sm_90a and sm_80 bundles (sm_80 with sm_90 cubins); main90 / new90 and
# main80 / new80: bf16 D = 128 only, for the A/B.
. "$(dirname "$0")/device-run.sh"
DC="python3 -m flash_mlir.tools.decode_check"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step check90 200 $DC --bundles $S/new90full --json $O/check90.json
step check80 200 $DC --bundles $S/new80full --quick --json $O/check80.json
step ab-a 120 $DB --bundles $S/main90 --variant new=$S/new90 --json $O/ab-a.json
step ab-b 120 $DB --bundles $S/new90 --variant main=$S/main90 --json $O/ab-b.json
step cold-a 120 $DB --cold --bundles $S/main90 --variant new=$S/new90 --json $O/cold-a.json
step ab80-a 120 $DB --bundles $S/main80 --variant new=$S/new80 --json $O/ab80-a.json
step ab80-b 120 $DB --bundles $S/new80 --variant main=$S/main80 --json $O/ab80-b.json
step memcheck 200 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode $DC --bundles $S/new90full --small --only paged,split,many
finish
