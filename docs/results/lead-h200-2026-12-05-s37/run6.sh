#!/usr/bin/env bash
# Lead's H200 run 6, thirty-seventh session (issue 17, item 5): the landed build (main with
# the separate merge's split kernels for pages of 16 and 64 slots, `_separate_s16` and
# `_separate_s64`, and the fused `_s16` with a lookup per 16 keys): decode_check of every
# sm_90a plan (fin90), memcheck, racecheck, then its bf16 D = 128 plans (fin1) against main
# 4fdbd34's (tile90), the issue's table, three processes with the slots rotated.
. "$(dirname "$0")/device-run.sh"
step check 220 python3 -m flash_mlir.tools.decode_check --bundles $S/fin90 --json $O/check.json
step memcheck 150 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/fin90 --small --only paged,anypage,many
step racecheck 120 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/fin90 --small --only paged
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 100 $DB --bundles $S/tile90 --variant fin=$S/fin1 --json $O/a.json
step b 100 $DB --bundles $S/fin1 --variant main=$S/tile90 --json $O/b.json
step c 100 $DB --bundles $S/tile90 --variant fin=$S/fin1 --json $O/c.json
finish
