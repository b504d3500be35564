#!/usr/bin/env bash
# Lead's H200 run 7, twenty-ninth session (issue 17, item 5): the sm_80 decode plans
# (bf16 D = 128, sm_90 cubins built from their PTX, run on the H200's 132 SMs) compiled with
# max_splits 128 (main's DECODE_MAX_SPLITS since the twenty-eighth session) against 256.
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
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step ab-a 170 $DB --bundles $S/s80ms256 --variant ms128=$S/s80ms128 --json $O/ab-a.json
step ab-b 170 $DB --bundles $S/s80ms128 --variant ms256=$S/s80ms256 --json $O/ab-b.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
