#!/usr/bin/env bash
# Lead s24, rotation run 2: bench = full rotation (default) + variants main, r16, r8, r4 (window W: offset kvTile mod W)
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
export PYTHONPATH=$S/python FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; cp "$O/steps.txt" "$OUT/" 2>/dev/null; }
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"; save; }
GC="python3 -m flash_mlir.gpu_check --mode backward"
step check8 60 $GC --bundles chk8 --deterministic no --repeat 1 --seed 2411 --json $O/check8.json
step bench 200 python3 -m flash_mlir.bench --mode backward --bundles bench --head-dims 128,64,256 --causal no --seqlens 512,1024,2048,4096,8192,16384 --rounds 7 --rep-ms 25 --variants --json $O/bench.json
grep ^backward "$O/bench.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
