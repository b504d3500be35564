#!/usr/bin/env bash
# H3 (s23) H200 run 1: per-kernel profile of main's sm_90a backward (b0 = main ffd6bf8's bf16
# D 64/128 non-causal bundles) against SDPA cuDNN on the four rows below cuDNN, and the waves test.
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=$(mktemp -d); export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
save() { tar czf "${OUT:-$here}/res.tgz" -C "$O" .; }
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"; save; }
finish() { echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save; }
trap finish EXIT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'
  echo "which: $(which nsys ncu 2>&1 | tr '\n' ' ')"; } > "$O/env.txt" 2>&1
cat "$O/env.txt"
step prof 110 env KPROF_JSON=$O/prof.json WAVES=128:1024:16:16,128:1024:8:33,128:1024:8:31,64:1024:16:32,64:1024:16:33,64:1024:16:31 \
  python3 kprof.py 7 10 main=$here/b0
