#!/usr/bin/env bash
# Lead's H200 run 6, thirtieth session (issue 17, item 5): run 5's compile-time page size
# in the fused kernel only (`fused`: consts.diff with `&& !separateMerge` on the switch; the
# separate merge's split kernel is main's, cmp-identical), against main, bf16 D = 128:
# sm_90a in three processes, the sm_80 plans (sm_90 cubins) in two. Timing only, S = 16.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5 --page-sizes 16"
step ab-a 120 $DB --bundles $S/main90 --variant fused=$S/fused90 --json $O/ab-a.json
step ab-b 120 $DB --bundles $S/fused90 --variant main=$S/main90 --json $O/ab-b.json
step cold-a 120 $DB --cold --bundles $S/main90 --variant fused=$S/fused90 --json $O/cold-a.json
step ab80-a 120 $DB --bundles $S/main80 --variant fused=$S/fused80 --json $O/ab80-a.json
step ab80-b 120 $DB --bundles $S/fused80 --variant main=$S/main80 --json $O/ab80-b.json
finish
