#!/usr/bin/env bash
# s53 run 4: the policy constant read back (cache-policy.py; nothing else runs unless it is
# kL2EvictFirstPolicy), the descriptors of the D = 64 paged kernels' LDGSTS (run 2 and 3's
# illegal instruction was an LDGSTS reading desc[UR1], which nothing set), new90 checked as
# a whole, and only if that passes: new90 against main90 in the same rounds at D = 128
# (two warm processes, slots swapped; one --cold), memcheck and racecheck on new90, D = 64
# and D = 256 (one process each). Cut to fit the session's device time left.
. "$(dirname "$0")/device-run.sh"
step policy 60 python3 $S/cache-policy.py --expect-evict-first 0x12F0000000000000
if ! tail -1 "$O/steps.txt" | grep -q "rc=0"; then finish; exit 0; fi
f=flash_decode_paged_sm_90a_bf16_d64_causal_lse.sm_90a.cubin
dis=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
step sass 60 bash -c "$dis -sass $S/new90/$f > $O/sass-new.txt; grep -o 'LDGSTS[^;]*' $O/sass-new.txt | grep -o 'desc\[UR[0-9]*\]' | sort | uniq -c | tr '\n' ' '"
step check 240 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --json $O/check.json
if ! tail -1 "$O/steps.txt" | grep -q "rc=0"; then finish; exit 0; fi
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 150 $DB --bundles $S/new90 --variant main=$S/main90 --json $O/a.json
step b 150 $DB --bundles $S/main90 --variant new=$S/new90 --json $O/b.json
step cold-a 240 $DB --cold --bundles $S/new90 --variant main=$S/main90 --json $O/cold-a.json
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
step memcheck 200 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 $san --tool memcheck --kernel-name kns=flash_decode --error-exitcode 3 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,split,many
step racecheck 200 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 $san --tool racecheck --kernel-name kns=flash_decode --error-exitcode 3 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,split
step d64-a 120 $DB --head-dim 64 --bundles $S/new90 --variant main=$S/main90 --json $O/d64-a.json
step d256-a 150 $DB --head-dim 256 --bundles $S/new90 --variant main=$S/main90 --json $O/d256-a.json
finish
