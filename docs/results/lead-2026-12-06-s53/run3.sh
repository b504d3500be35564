#!/usr/bin/env bash
# s53 run 3 (run 2 again with new90 rebuilt: the hinted copies take 64-bit shared
# addresses, as nvgpu's copies do; run 2's new90, with 32-bit ones, is a32 here and hit an
# illegal instruction in the fused kernels): the SASS of the D = 64 kernel that failed in
# both forms, new90 checked as a whole, and only if that passes the timings of run2.sh.
. "$(dirname "$0")/device-run.sh"
f=flash_decode_paged_sm_90a_bf16_d64_causal_lse.sm_90a.cubin
dis=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
step sass 60 bash -c "$dis -sass $S/a32/$f > $O/sass-a32.txt; $dis -sass $S/new90/$f > $O/sass-new.txt; grep -c LDGSTS $O/sass-a32.txt $O/sass-new.txt"
step check 240 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --json $O/check.json
if ! tail -1 "$O/steps.txt" | grep -q "rc=0"; then finish; exit 0; fi
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
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
