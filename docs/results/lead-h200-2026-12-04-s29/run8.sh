#!/usr/bin/env bash
# Lead's H200 run 8, twenty-ninth session (issue 17, item 5): the sm_80 decode bundles with
# max_splits 256 again (DECODE_MAX_SPLITS per arch; new80: every dtype and head dimension,
# cubins for sm_80 and sm_90): decode_check --quick, and a third process of run 7's A/B
# (128 against 256), cold.
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
DC="python3 -m flash_mlir.tools.decode_check"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step check80 170 $DC --bundles $S/new80 --quick --json $O/check80.json
step cold 170 $DB --cold --bundles $S/s80ms256 --variant ms128=$S/s80ms128 --json $O/cold.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
