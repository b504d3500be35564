#!/usr/bin/env bash
# Lead's H200 run 2, thirty-first session (issue 17, item 5): paged plans for pages of 64
# slots too (variant s64, compile --fixed-page-sizes 64; not shipped by run 1's build).
# full64: run 1's new90full plus the s64 plans (every dtype and D); new64: its bf16
# D = 128 plans (any S, s16, s64); main90: main's 7d3a0a1 plans. Three more processes of
# s16 against main come with it (page sizes 16 and 64 in each).
. "$(dirname "$0")/device-run.sh"
DC="python3 -m flash_mlir.tools.decode_check"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step check64 200 $DC --bundles $S/full64 --only paged,many --page-sizes 64 --json $O/check64.json
step ab-a 120 $DB --bundles $S/main90 --variant new=$S/new64 --json $O/ab-a.json
step ab-b 120 $DB --bundles $S/new64 --variant main=$S/main90 --json $O/ab-b.json
step cold-a 120 $DB --cold --bundles $S/main90 --variant new=$S/new64 --json $O/cold-a.json
step memcheck 200 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode $DC --bundles $S/full64 --small --only paged --page-sizes 64
finish
