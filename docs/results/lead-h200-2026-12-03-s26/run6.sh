#!/usr/bin/env bash
# Lead's H200 run 6, twenty-sixth session (issue 17, items 3 and 6) on main 7a19741's sm_90a decode bundles
# (new90: python3 -m flash_mlir.compile --out new90 --arch sm_90a --ops split_kv,paged): the serving loop and
# the host time per call, after the split grid change.
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
t0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; cp "$O/steps.txt" "$OUT/" 2>/dev/null; }
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"; save; }
step serve 240 python3 scripts/gpu/serve-check.py --bundles $S/new90 --json $O/serve.json
step host 120 env PYTHONPATH=$S/python:$S/scripts/bench python3 scripts/bench/decode-host-time.py $S/new90 --label main-7a19741 --json $O/host.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
