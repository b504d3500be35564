#!/usr/bin/env bash
# Run 2: dq1 with the dSᵀ-buffer wait before its stores (run 1's dq1 raced: 65/68).
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=${OUT:-$here/out}; W=$here/res2; mkdir -p "$O" "$W"
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
pack() { tar -C "$here" -czf "$O/results2.tgz" res2; }
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$W/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s PASS=$(grep -c ^PASS "$W/$name.log") FAIL=$(grep -c ^FAIL "$W/$name.log") | $(tail -1 "$W/$name.log" | cut -c1-160)" | tee -a "$W/steps.txt"; pack; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } > "$W/env.txt" 2>&1
step checkdq1 30 python3 -m flash_mlir.gpu_check --mode backward --bundles d90 --head-dims 128 --deterministic both --repeat 10 --json "$W/checkdq1.json"
step racecheck-d90 20 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool racecheck --kernel-name kns=flash_bwd --error-exitcode 3 \
    python3 -m flash_mlir.gpu_check --mode backward --bundles d90 --dtypes bf16 --causal yes --head-dims 128 --shape 1,4,2,300,270 --repeat 0 --deterministic both
grep -E "RACECHECK SUMMARY" "$W/racecheck-d90.log" | tee -a "$W/steps.txt"
step bench 45 python3 -m flash_mlir.bench --mode backward --bundles bvar --head-dims 128 --seqlens 512,1024,2048,4096,8192,16384 --rounds 3 --rep-ms 30 --variants --json "$W/bench.json"
grep ^backward "$W/bench.log" | sed 's/err.*//' | tee -a "$W/steps.txt"
step planted-d90 15 python3 -m flash_mlir.gpu_check --mode backward --bundles planted/d90 --dtypes bf16 --head-dims 128 --deterministic both --repeat 0 --shape 1,8,2,257,257 --shape 2,4,2,100,1000
step memcheck-d90 15 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool memcheck --kernel-name kns=flash_bwd --error-exitcode 3 \
    python3 -m flash_mlir.gpu_check --mode backward --bundles d90 --dtypes bf16 --causal yes --head-dims 128 --shape 1,4,2,300,270 --repeat 0 --deterministic both
grep -E "ERROR SUMMARY" "$W/memcheck-d90.log" | tee -a "$W/steps.txt"
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$W/steps.txt"; pack
