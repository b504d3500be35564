#!/usr/bin/env bash
# s51 run 1: the fiftieth session's run 3 (its run3.sh's steps, unchanged: the split rule
# aiming at one block an SM where two do not fit, branch s50-fit's plans fit90 and fit80s
# checked, sm_80 D = 256 timed against main's, memcheck), then the head-pair experiment
# (pair.py; fit90's D = 64 and 128 plans are main's, byte for byte): D = 64 in two
# processes, D = 128 (the D = 256 plan on the pairs) in one.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5 --head-dim 256"
SAN="--kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/fit90 --quick --only paged --page-sizes 16"
step check90 240 python3 -m flash_mlir.tools.decode_check --bundles $S/fit90 --json $O/check90.json
step pair64-a 90 python3 $S/pair.py --bundles $S/fit90 --head-dim 64 --json $O/pair64-a.json
step check80 240 python3 -m flash_mlir.tools.decode_check --bundles $S/fit80s --json $O/check80.json
step e 150 $DB --bundles $S/fit80s --variant main=$S/main80s --json $O/e.json
step f 150 $DB --bundles $S/main80s --variant fit=$S/fit80s --json $O/f.json
step pair64-b 90 python3 $S/pair.py --bundles $S/fit90 --head-dim 64 --json $O/pair64-b.json
step pair128 120 python3 $S/pair.py --bundles $S/fit90 --head-dim 128 --json $O/pair128.json
step memcheck 90 compute-sanitizer --tool memcheck $SAN
finish
