#!/usr/bin/env bash
# Lead's third H200 run, eighteenth session: the merged main's sm_90a backward and
# forward + backward, bf16, D 64/128/256, against SDPA FA2 and cuDNN in the same rounds.
# b90: python3 -m flash_mlir.compile --out b90 --arch sm_90a --dtypes bf16 --head-dims 64,128,256 \
#        --ops forward,backward --deterministic no   (main 323e88a)
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'; } > "$O/env.txt" 2>&1
step bench-bwd 200 python3 -m flash_mlir.bench --mode backward --bundles $S/b90 --head-dims 64,128,256 --seqlens 512,1024,2048,4096,8192,16384 --rounds 3 --rep-ms 30 --json $O/bench-bwd.json
step bench-train 120 python3 -m flash_mlir.bench --mode train --bundles $S/b90 --head-dims 64,128,256 --seqlens 2048,8192 --rounds 3 --rep-ms 30 --json $O/bench-train.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"
tar czf "$OUT/res.tgz" -C "$O" .
cp "$O/steps.txt" "$OUT/"
