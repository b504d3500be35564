#!/usr/bin/env bash
# Lead's H200 run, nineteenth session: the merged main's sm_90a backward (D = 256 by roles)
# checked at every D and both plans, and the backward and forward + backward against SDPA
# FA2 and cuDNN in the same interleaved rounds, bf16, D 64/128/256.
# b90: python3 -m flash_mlir.compile --out b90 --arch sm_90a --dtypes bf16 --head-dims 64,128,256 \
#        --ops forward,backward --deterministic no
# chk: python3 -m flash_mlir.compile --out chk --arch sm_90a --dtypes bf16,f16 --head-dims 64,128,256 \
#        --ops backward --deterministic both
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"
  tar czf "$OUT/res.tgz" -C "$O" .; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'; } > "$O/env.txt" 2>&1
step check-bwd 120 python3 -m flash_mlir.gpu_check --mode backward --bundles $S/chk --deterministic both --repeat 5 --seed 1931 --json $O/check-bwd.json
step bench-bwd 200 python3 -m flash_mlir.bench --mode backward --bundles $S/b90 --head-dims 64,128,256 --seqlens 512,1024,2048,4096,8192,16384 --rounds 5 --rep-ms 30 --json $O/bench-bwd.json
step bench-train 100 python3 -m flash_mlir.bench --mode train --bundles $S/b90 --head-dims 64,128,256 --seqlens 2048,8192 --rounds 3 --rep-ms 30 --json $O/bench-train.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"
tar czf "$OUT/res.tgz" -C "$O" .
cp "$O/steps.txt" "$OUT/"
