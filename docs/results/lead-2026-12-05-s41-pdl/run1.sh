#!/usr/bin/env bash
# s41 run 1 (staged by stage.sh in this folder): the GPU checks of the split kernels
# launched with programmatic dependent launch (every sm_90a decode plan), the chain
# check against the plant, memcheck and racecheck, and the time against main's
# plans: back to back (a, b: slots swapped) and behind a torch kernel (c, d).
. "$(dirname "$0")/device-run.sh"
step check 240 python3 -m flash_mlir.tools.decode_check --bundles $S/pdl --json $O/check.json
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 100 $DB --bundles $S/pdl --variant base=$S/base --json $O/a.json
step b 100 $DB --bundles $S/base --variant pdl=$S/pdl --json $O/b.json
step plant 60 python3 -m flash_mlir.tools.decode_check --bundles $S/plant --only chain --json $O/plant.json
step memcheck 90 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/pdl --small --only paged,chain
step racecheck 90 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/pdl --small --only paged,chain
step c 100 $DB --bundles $S/pdl --variant base=$S/base --between --json $O/c.json
step d 100 $DB --bundles $S/base --variant pdl=$S/pdl --between --json $O/d.json
finish
