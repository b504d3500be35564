#!/usr/bin/env bash
# Lead's second H200 run, eighteenth session (main after the H1/H3 merges + sm_80 strided twins):
# b80s: sm_80 fwd (+ --strides variant twins) + bwd, bf16/f16 D 64/128 (sm_90 cubins)
# b80p: b80s's bf16 D=64 forward plans, the twins' PTX planted (q's row stride read from k's, ptxas'd again)
# b90s: from ../lead-run/b90, its bf16 D=64 forward plans: sm_90a bf16/f16 D 64/128 fwd+bwd --batch-maps variant (host time per call)
# dec90/dec80: merged main's split-KV/paged plans (H3's kernels)
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'; } > "$O/env.txt" 2>&1
timeout 100 python3 -m flash_mlir.tools.decode_check --bundles $S/dec90 --json $O/dec-check90.json > $O/dec-check90.log 2>&1 &
timeout 100 python3 -m flash_mlir.tools.decode_check --bundles $S/dec80 --quick --json $O/dec-check80.json > $O/dec-check80.log 2>&1 &
wait; echo "dec90: $(tail -1 $O/dec-check90.log) | dec80: $(tail -1 $O/dec-check80.log)" | tee -a $O/steps.txt
step strided-check 60 python3 strided-check.py $S/b80s --json $O/strided-check.json
step strided-planted 40 python3 strided-check.py $S/b80p --head-dims 64 --dtypes bf16 --json $O/strided-planted.json
step memcheck 70 compute-sanitizer --tool memcheck --error-exitcode 9 python3 strided-check.py $S/b80s --head-dims 64 --dtypes bf16
step host-time-b4 45 env FLASH_MLIR_BUNDLES=$S/b90s python3 scripts/bench/attention-host-time.py $S/b90s --rounds 9 --calls 200 --shape 4,8,128,64 --json $O/host-time-b4.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"
tar czf "$OUT/res.tgz" -C "$O" .
cp "$O/steps.txt" "$OUT/"
