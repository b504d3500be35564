#!/usr/bin/env bash
# Lead's H200 run 4, twenty-eighth session (issue 17, item 5): the decode bundles' max_splits
# (python/flash_mlir/compiler/compile.py DECODE_MAX_SPLITS, 256 on main) at 96, 128 and 192
# (msN; main's flash-opt), against main0 and run 3's h (the separate merge's part count aimed
# at one block an SM). ms128full: every dtype and head dimension, for decode_check.
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
step ab-a 150 $DB --bundles $S/main0 --variant ms128=$S/ms128 --variant ms96=$S/ms96 --variant ms192=$S/ms192 --variant h=$S/h --json $O/ab-a.json
step check-ms128 150 $DC --bundles $S/ms128full --json $O/check-ms128.json
step ab-b 150 $DB --bundles $S/ms128 --variant main=$S/main0 --variant ms96=$S/ms96 --variant ms192=$S/ms192 --variant h=$S/h --json $O/ab-b.json
step cold-a 150 $DB --cold --bundles $S/main0 --variant ms128=$S/ms128 --variant ms96=$S/ms96 --variant ms192=$S/ms192 --variant h=$S/h --json $O/cold-a.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
