#!/usr/bin/env bash
# s50 run 3 (stage3.sh): the split rule aiming at one block an SM where two do not fit
# (splitKVTwoBlocksFit; D = 256), built: every sm_90a decode plan (fit90) and every sm_80
# plan as sm_90 cubins (fit80s) checked, memcheck of the paged cases at S = 16 (D = 64,
# 128, 256; no racecheck: the device time left); sm_80's bf16 D = 256 against main's
# (main80s) in two processes with the slots swapped (sm_90a's fit90 D = 256 files are
# byte-identical to run 2's r1_90).
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5 --head-dim 256"
SAN="--kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/fit90 --quick --only paged --page-sizes 16"
step check90 240 python3 -m flash_mlir.tools.decode_check --bundles $S/fit90 --json $O/check90.json
step check80 240 python3 -m flash_mlir.tools.decode_check --bundles $S/fit80s --json $O/check80.json
step e 150 $DB --bundles $S/fit80s --variant main=$S/main80s --json $O/e.json
step f 150 $DB --bundles $S/main80s --variant fit=$S/fit80s --json $O/f.json
step memcheck 90 compute-sanitizer --tool memcheck $SAN
finish
