#!/usr/bin/env bash
# h2 (bwd-perf-3) H200 run: which sm_90a backward schedule is fastest at
# D = 64 and 128? The model's kernel (64x128, 2 stages) against variants of
# the same kernel (q128: Q tiles of 128 rows at D=64, dQ split by rows;
# s3, s4: 64x128 with 3 or 4 Q/dO stages), SDPA FA2
# and cuDNN in the same interleaved rounds; then the gradient checks of each
# candidate (both plans, NaN-poisoned outputs, 10 deterministic repeats), a
# planted breakage, memcheck and racecheck. Each step has a limit.
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=${OUT:-$here/out}; mkdir -p "$O"
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'; } > "$O/env.txt" 2>&1
step bench 100 python3 -m flash_mlir.bench --mode backward --bundles "$here/bvar" --head-dims 64,128 --seqlens 512,1024,2048,4096,8192,16384 --rounds 3 --rep-ms 30 --variants --json "$O/bench-backward.json"
grep ^backward "$O/bench.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
chk() { local c=$1 d=$2; step check-$c 40 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/$c" --head-dims $d --deterministic both --repeat 10 --json "$O/check-$c.json"; }
san() { local c=$1 d=$2 tool
  for tool in memcheck racecheck; do
    step $tool-$c 30 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
      python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/$c" --dtypes bf16 --causal yes --head-dims $d --shape 1,4,2,300,270 --repeat 0 --deterministic both
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$O/$tool-$c.log" | tee -a "$O/steps.txt"
  done; }
# in order of need: the likeliest winner's checks first
chk c64q128 64
step planted 25 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/planted" --dtypes bf16 --head-dims 64 --deterministic both --repeat 0 --shape 1,8,2,257,257 --shape 2,4,2,100,1000
san c64q128 64
chk c128s3 128
san c128s3 128
chk c64s3 64
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"
