#!/usr/bin/env bash
# Lead's H200 run 5, thirty-fifth session, carried to the thirty-sixth
# (issue 17, item 5; NOT RUN yet: no device lent in either): grouped page lookups in the kernels for pages of 16 slots (exp16.diff on top of sepage.diff: one lookup
# per aligned 16-key group, the group's other rows at fixed offsets wrapped into the page).
# grp90full: every sm_90a plan with FLASH_DECODE_EXP=grp16 (the separate merge's _separate_s16 and
# the fused _s16 grouped), checked first; then bf16 D = 128 timing at S = 16: sep90
# (sepage.diff) against sep16g (the separate merge's kernel only) and grp16 (both), three processes.
. "$(dirname "$0")/device-run.sh"
step check 220 python3 -m flash_mlir.tools.decode_check --bundles $S/grp90full --only paged,anypage,many,peaks --json $O/check.json
step memcheck 150 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/grp90full --small --only paged,anypage,many
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5 --page-sizes 16"
step a 80 $DB --bundles $S/sep90 --variant sep16g=$S/sep16g --variant grp16=$S/grp16 --json $O/a.json
step b 80 $DB --bundles $S/sep16g --variant grp16=$S/grp16 --variant sep=$S/sep90 --json $O/b.json
step c 80 $DB --bundles $S/grp16 --variant sep=$S/sep90 --variant sep16g=$S/sep16g --json $O/c.json
finish
