#!/usr/bin/env bash
# H3 (branch s21-h3) second H200 run: compute-sanitizer memcheck and racecheck on the branch
# head's shipped sm_90a backward bundles (loadPasses 16), D 128/256 (D = 64 in run 1: its kernels are the same as p8's), an awkward shape
# (rows past Nq: the convert's unconditional loads of padded rows); then the head against main
# 55d5f04 in the same interleaved rounds as SDPA FA2/cuDNN, the D = 128 short rows again.
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=$(mktemp -d); export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
save() { tar czf "${OUT:-$here}/res.tgz" -C "$O" .; }
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"
  save; }
finish() { echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save; }
trap finish EXIT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > "$O/env.txt" 2>&1
GC="python3 -m flash_mlir.gpu_check --mode backward"
for tool in memcheck racecheck; do
  step $tool 30 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
    $GC --bundles "$here/chk" --dtypes bf16 --head-dims 128,256 --causal yes --shape 1,4,2,300,270 --repeat 0 --deterministic both
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$O/$tool.log" | tee -a "$O/steps.txt"
done
step bench 45 python3 -m flash_mlir.bench --mode backward --bundles "$here/bench" --head-dims 128 --seqlens 512,1024,2048,4096 --rounds 5 --rep-ms 25 --variants --json "$O/bench.json"
grep ^backward "$O/bench.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
