#!/usr/bin/env bash
# s45 run 2 (staged by stage.sh): run 1 again on the window whose loads past 512 entries are
# issued only for a part of more pages (kDecodeTableWindowBase); the block-table window of 1024 entries in the decode
# kernels that aim at one block an SM (sm_90a D = 128). Every sm_90a decode plan through
# decode_check, memcheck and racecheck; then the time against main's plans (base90), the
# slots swapped between two processes.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 100 $DB --bundles $S/new90 --variant base=$S/base90 --json $O/a.json
step b 100 $DB --bundles $S/base90 --variant win=$S/new90 --json $O/b.json
step check90 200 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --json $O/check90.json
step memcheck 60 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,many
step racecheck 60 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,many
finish
