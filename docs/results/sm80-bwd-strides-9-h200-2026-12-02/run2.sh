#!/usr/bin/env bash
# H3's second H200 call (same staging, see stage.sh): torch.profiler on the gradients of the
# q, k, v views (deterministic mode without torch's NaN fill of empty tensors), the twins'
# timing at N = 8192 for both plans, and the D = 256 causal two-stage plan against main's at
# six lengths, 5 rounds. Output: $OUT/res2.tgz.
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=$(mktemp -d); export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"
  tar czf "${OUT:-$here}/res2.tgz" -C "$O" .; }
finish() { echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; tar czf "${OUT:-$here}/res2.tgz" -C "$O" .; }
trap finish EXIT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'; } > "$O/env.txt" 2>&1
step prof 40 python3 strided-bwd-check.py b80s --json "$O/prof.json"
step prof-plain 25 python3 strided-bwd-check.py b80p --expect-copies --head-dims 64,256 --dtypes bf16 --deterministic no --json "$O/prof-plain.json"
step bench256 60 python3 -m flash_mlir.bench --mode backward --bundles b256 --head-dims 256 --causal yes --seqlens 512,1024,2048,4096,8192,16384 --rounds 5 --rep-ms 30 --variants --json "$O/bench256.json"
step bench-strided 50 python3 bench-strided.py --twins b80s --plain b80p --seqlens 8192 --deterministic both --rounds 5 --reps 3 --json "$O/bench-strided.json"
