#!/usr/bin/env bash
# Lead s24: the Q-tile rotation experiment (FLASH_BWD_ROT): non-causal atomic sm_90a backward
# visits Q tiles from kvTile mod numTiles. bench = rot (default) + main's plans as variant "main".
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
export PYTHONPATH=$S/python FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; cp "$O/steps.txt" "$OUT/" 2>/dev/null; }
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"; save; }
GC="python3 -m flash_mlir.gpu_check --mode backward"
step smoke 40 $GC --bundles chk --dtypes bf16 --head-dims 128 --causal no --deterministic no --repeat 0 --shape 2,40,40,300,300
grep -q "^smoke rc=0" "$O/steps.txt" || { echo "smoke failed: stop" | tee -a "$O/steps.txt"; save; exit 1; }
step check 60 $GC --bundles chk --deterministic no --repeat 2 --seed 2401 --json $O/check.json
step check-mw 45 $GC --bundles chk --dtypes bf16 --head-dims 64,128 --causal no --deterministic no --repeat 0 --seed 2402 --shape 4,16,8,1000,1000 --shape 2,40,40,300,300 --shape 8,32,32,1024,1024 --shape 1,8,2,4096,4096
step plant 40 $GC --bundles plant --dtypes bf16 --causal no --deterministic no --repeat 0 --seed 2403
step bench 150 python3 -m flash_mlir.bench --mode backward --bundles bench --head-dims 128,64,256 --causal no --seqlens 512,1024,2048,4096,8192,16384 --rounds 7 --rep-ms 25 --variants --json $O/bench.json
grep ^backward "$O/bench.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
