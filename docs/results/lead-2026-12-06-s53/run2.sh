#!/usr/bin/env bash
# s53 run 2, in the order of their worth: new90 (the K/V copies under an evict-first L2
# policy) checked as a whole (decode_check), then against main90 in the same rounds:
# item 5's rows at D = 128 warm (two processes, slots swapped) and with the K/V read from
# DRAM (--cold, two); D = 64 and D = 256 (two each); memcheck and racecheck on the new plans.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step check 240 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --json $O/check.json
step a 150 $DB --bundles $S/new90 --variant main=$S/main90 --json $O/a.json
step b 150 $DB --bundles $S/main90 --variant new=$S/new90 --json $O/b.json
step cold-a 240 $DB --cold --bundles $S/new90 --variant main=$S/main90 --json $O/cold-a.json
step cold-b 240 $DB --cold --bundles $S/main90 --variant new=$S/new90 --json $O/cold-b.json
step d64-a 120 $DB --head-dim 64 --bundles $S/new90 --variant main=$S/main90 --json $O/d64-a.json
step d64-b 120 $DB --head-dim 64 --bundles $S/main90 --variant new=$S/new90 --json $O/d64-b.json
step d256-a 150 $DB --head-dim 256 --bundles $S/new90 --variant main=$S/main90 --json $O/d256-a.json
step d256-b 150 $DB --head-dim 256 --bundles $S/main90 --variant new=$S/new90 --json $O/d256-b.json
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
step memcheck 200 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 $san --tool memcheck --kernel-name kns=flash_decode --error-exitcode 3 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,split,many
step racecheck 200 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 $san --tool racecheck --kernel-name kns=flash_decode --error-exitcode 3 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,split
finish
