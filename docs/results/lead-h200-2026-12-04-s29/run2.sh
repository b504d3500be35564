#!/usr/bin/env bash
# Lead's H200 run 2, twenty-ninth session (issue 17, item 5): what the merge kernel's
# griddepcontrol.wait costs. nowait: main's bf16 D = 128 sm_90a decode bundles with the
# merge kernel's wait left out (FLASH_DECODE_EXP=nowait; timing only, its results may be
# wrong). Two processes, the slots swapped.
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
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5 --rows 1x8192,1x32768,1x131072,8x32768"
step ab-a 150 $DB --bundles $S/main --variant nowait=$S/nowait --json $O/ab-a.json
step ab-b 150 $DB --bundles $S/nowait --variant main=$S/main --json $O/ab-b.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
