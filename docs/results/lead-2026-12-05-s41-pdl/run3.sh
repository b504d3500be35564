#!/usr/bin/env bash
# s41 run 3 (staged by stage.sh from the shipped form: the split kernels wait, nothing
# triggers early but the separate merge's split kernel): the GPU checks of every sm_90a
# decode plan, the chain check against the plant, memcheck and racecheck, and the time
# against main's plans, back to back (a, b: slots swapped) and behind a torch kernel
# (c, d).
. "$(dirname "$0")/device-run.sh"
step check 200 python3 -m flash_mlir.tools.decode_check --bundles $S/pdl --json $O/check.json
step plant 50 python3 -m flash_mlir.tools.decode_check --bundles $S/plant --only chain --json $O/plant.json
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 80 $DB --bundles $S/pdl --variant base=$S/base --json $O/a.json
step b 80 $DB --bundles $S/base --variant pdl=$S/pdl --json $O/b.json
step c 80 $DB --bundles $S/pdl --variant base=$S/base --between --json $O/c.json
step d 80 $DB --bundles $S/base --variant pdl=$S/pdl --between --json $O/d.json
step memcheck 60 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/pdl --small --only paged,chain
step racecheck 60 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/pdl --small --only paged,chain
finish
