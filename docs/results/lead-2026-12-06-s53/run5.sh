#!/usr/bin/env bash
# s53 run 5: does ptxas 13.0 assemble cp.async with an L2 cache policy correctly in every
# sm_90a decode plan when the copies are nvgpu's (run 1's hand edit, now on every plan),
# unlike the compiled inline-PTX copies of runs 2-4? The SASS descriptors of one D = 64
# kernel, ef90 checked as a whole, and only if that passes: ef90 against main90 at D = 128
# (two warm processes, one --cold), D = 64 and D = 256 (one each).
. "$(dirname "$0")/device-run.sh"
f=flash_decode_paged_sm_90a_bf16_d64_causal_lse.sm_90a.cubin
dis=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
step sass 60 bash -c "$dis -sass $S/ef90/$f > $O/sass-ef.txt; grep -o 'LDGSTS[^;]*' $O/sass-ef.txt | sed -E 's/R[0-9]+/R/g; s/0x[0-9a-f]+/X/g; s/, !?P[0-9]//' | sort | uniq -c | tr '\n' ' '"
step check 240 python3 -m flash_mlir.tools.decode_check --bundles $S/ef90 --json $O/check.json
if ! tail -1 "$O/steps.txt" | grep -q "rc=0"; then finish; exit 0; fi
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 150 $DB --bundles $S/ef90 --variant main=$S/main90 --json $O/a.json
step b 150 $DB --bundles $S/main90 --variant ef=$S/ef90 --json $O/b.json
step cold-a 240 $DB --cold --bundles $S/ef90 --variant main=$S/main90 --json $O/cold-a.json
step d64-a 120 $DB --head-dim 64 --bundles $S/ef90 --variant main=$S/main90 --json $O/d64-a.json
step d256-a 150 $DB --head-dim 256 --bundles $S/ef90 --variant main=$S/main90 --json $O/d256-a.json
finish
