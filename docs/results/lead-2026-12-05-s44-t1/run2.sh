#!/usr/bin/env bash
# s44 run 2 (staged by stage2.sh): the shipped rule (Target/SplitKV.h
# splitKVBlocksPerSM: one block an SM from 3 K/V stages up). Every sm_90a and sm_80
# decode plan of the branch through decode_check, memcheck and racecheck; then the time
# against main's rule (base90, base80: the branch built with the threshold out of reach,
# whose decode plans are main's, cmp-checked), the slots swapped between two processes:
# sm_90a D = 128 (a, b), sm_90a D = 64 (c, d), sm_80 D = 64 (e, f; sm_80's D = 128 keeps
# two blocks an SM, its plans unchanged).
. "$(dirname "$0")/device-run.sh"
step check90 200 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --json $O/check90.json
step check80 150 python3 -m flash_mlir.tools.decode_check --bundles $S/new80 --json $O/check80.json
step memcheck 60 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,many
step racecheck 60 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,many
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 100 $DB --bundles $S/new90 --variant base=$S/base90 --json $O/a.json
step b 100 $DB --bundles $S/base90 --variant one=$S/new90 --json $O/b.json
step c 100 $DB --head-dim 64 --bundles $S/new90 --variant base=$S/base90 --json $O/c.json
step d 100 $DB --head-dim 64 --bundles $S/base90 --variant one=$S/new90 --json $O/d.json
step e 100 $DB --head-dim 64 --bundles $S/new80 --variant base=$S/base80 --json $O/e.json
step f 100 $DB --head-dim 64 --bundles $S/base80 --variant one=$S/new80 --json $O/f.json
finish
