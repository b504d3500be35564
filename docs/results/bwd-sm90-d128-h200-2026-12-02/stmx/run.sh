#!/usr/bin/env bash
# The stmatrix experiment on the H200 (about 3 minutes of commands): gradient
# checks of the D = 128 bundles (both plans, 10 deterministic repeats), the
# planted breakage, memcheck + racecheck on one small case, then the D = 128
# backward bench: the experiment (flash_mlir) against main's kernel
# (flash_mlir_main), FA2 and cuDNN in the same interleaved rounds.
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=${OUT:-$here/out}; mkdir -p "$O"
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"; }
step check 60 python3 -m flash_mlir.gpu_check --mode backward --bundles c128 --head-dims 128 --deterministic both --repeat 10 --json "$O/check.json"
step planted 30 python3 -m flash_mlir.gpu_check --mode backward --bundles planted --dtypes bf16 --head-dims 128 --deterministic both --repeat 0 --shape 1,8,2,257,257 --shape 2,4,2,100,1000
for tool in memcheck racecheck; do
  step $tool 40 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
    python3 -m flash_mlir.gpu_check --mode backward --bundles c128 --dtypes bf16 --causal yes --head-dims 128 --shape 1,4,2,300,270 --repeat 0 --deterministic both
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$O/$tool.log" | tee -a "$O/steps.txt"
done
step bench 90 python3 -m flash_mlir.bench --mode backward --bundles bvar --head-dims 128 --seqlens 512,1024,2048,4096,8192,16384 --rounds 3 --rep-ms 30 --variants --json "$O/bench-backward.json"
grep ^backward "$O/bench.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"
