#!/usr/bin/env bash
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=${OUT:-$here/out}; W=$(mktemp -d); mkdir -p "$O"
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
pack() { tar -C "$W" -czf "$O/res.tgz" .; }
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$W/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s PASS=$(grep -c ^PASS "$W/$name.log") FAIL=$(grep -c ^FAIL "$W/$name.log") | $(tail -1 "$W/$name.log" | cut -c1-160)" | tee -a "$W/steps.txt"; pack; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } > "$W/env.txt" 2>&1
step bench 60 python3 -m flash_mlir.bench --mode backward --bundles bvar --head-dims 128,64 --seqlens 512,1024,8192 --rounds 3 --rep-ms 30 --variants --json "$W/bench.json"
grep ^backward "$W/bench.log" | tee -a "$W/steps.txt"
step planted 20 python3 -m flash_mlir.gpu_check --mode backward --bundles planted --dtypes bf16 --head-dims 128 --deterministic no --repeat 0 --shape 1,8,2,257,257 --shape 4,16,8,1000,1000
for tool in memcheck racecheck; do
  step $tool 30 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
    python3 -m flash_mlir.gpu_check --mode backward --bundles p90 --dtypes bf16 --causal yes --head-dims 128 --shape 1,200,100,130,130 --repeat 0 --deterministic no
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$W/$tool.log" | tee -a "$W/steps.txt"
done
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$W/steps.txt"; pack
