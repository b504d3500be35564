#!/usr/bin/env bash
# s58 run 3 (asked for nvidia-h200, the issue's machine): run 2's sanitizer steps on
# main90, then run 1's D = 128 read-floor table (two warm processes and one --cold).
. "$(dirname "$0")/device-run.sh"
CS="compute-sanitizer --kernel-name kns=flash_decode --error-exitcode 9"
DC="python3 -m flash_mlir.tools.decode_check --bundles $S/main90 --small --only paged,split,many"
step memcheck 150 $CS --tool memcheck $DC
step racecheck 200 $CS --tool racecheck $DC
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step rf-a 60 $DB --read-floor --bundles $S/main90 --json $O/rf-a.json
step rf-b 60 $DB --read-floor --bundles $S/main90 --json $O/rf-b.json
step rf-cold 60 $DB --cold --read-floor --bundles $S/main90 --json $O/rf-cold.json
finish
