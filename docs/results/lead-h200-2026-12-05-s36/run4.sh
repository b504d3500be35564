#!/usr/bin/env bash
# Lead's H200 run 4, thirty-fifth session, carried to the thirty-sixth
# (issue 17, item 5; NOT RUN yet: no device lent in either; sepage.diff): the separate merge's split kernel
# for pages of 64 slots (`<name>_separate_s64`, one page lookup a tile, no grouped form) in
# every sm_90a paged plan: decode_check of every sm_90a plan so compiled (new90; anypage zeroes
# the new kernel too), memcheck, racecheck, then its bf16 D = 128 plans (sep90) against main's
# (tile90), the issue's table, three processes with the slots rotated.
. "$(dirname "$0")/device-run.sh"
step check 220 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --json $O/check.json
step memcheck 150 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,anypage,many
step racecheck 120 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 100 $DB --bundles $S/tile90 --variant sep=$S/sep90 --json $O/a.json
step b 100 $DB --bundles $S/sep90 --variant main=$S/tile90 --json $O/b.json
step c 100 $DB --bundles $S/tile90 --variant sep=$S/sep90 --json $O/c.json
finish
