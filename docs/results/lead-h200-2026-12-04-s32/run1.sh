#!/usr/bin/env bash
# Lead's H200 run 1, thirty-second session (issue 17, item 5): EXPERIMENT FLASH_DECODE_EXP=bulk,
# the sm_90a split kernels' K/V rows by cp.async.bulk (one 256-byte copy a thread a tile into
# rows padded to 272 bytes, an mbarrier a stage). bulkfull: every sm_90a decode plan so built;
# bulk90 / main90: bf16 D = 128 (main90: main 9913b3c's plans, PTX cmp-identical to lit's).
. "$(dirname "$0")/device-run.sh"
DC="python3 -m flash_mlir.tools.decode_check"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step check 300 $DC --bundles $S/bulkfull --json $O/check.json
step ab-a 150 $DB --bundles $S/main90 --variant bulk=$S/bulk90 --json $O/ab-a.json
step ab-b 150 $DB --bundles $S/bulk90 --variant main=$S/main90 --json $O/ab-b.json
step racecheck 150 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode $DC --bundles $S/bulkfull --small --only paged,split
step memcheck 150 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode $DC --bundles $S/bulkfull --small --only paged,split,many
finish
