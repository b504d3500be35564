#!/usr/bin/env bash
# Lead's H200 run 1, twenty-sixth session (issue 17, item 5):
# 1) read-floor (scripts/bench/read-floor.cu): the fastest one-kernel read of the decode rows' bytes,
#    and the cost of dependent loads before the read, timed as decode_bench times (graphs of 20 calls);
# 2) decode_bench on main's dec90 (PTX cmp-identical to the twenty-third session's measured bundles), three processes.
# read-floor: nvcc -O3 -std=c++17 -arch=sm_90a -o read-floor scripts/bench/read-floor.cu
# dec90: python3 -m flash_mlir.compile --out dec90 --arch sm_90a --ops split_kv,paged --dtypes bf16 --head-dims 128
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
t0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; cp "$O/steps.txt" "$OUT/" 2>/dev/null; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'; } > "$O/env.txt" 2>&1
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"; save; }
step floor 150 ./read-floor --rounds 5 --json $O/floor.json
for p in a b c; do
  step dec-$p 60 python3 -m flash_mlir.tools.decode_bench --bundles $S/dec90 --gqa 8/1,32/8 --rounds 5 --json $O/dec-$p.json
done
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
