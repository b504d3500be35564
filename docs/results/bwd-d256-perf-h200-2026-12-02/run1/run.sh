#!/usr/bin/env bash
# h3 (bwd-d256-perf) H200 run: the D=256 sm_90a backward with one dO slot and
# a ring of three dQ slice buffers per consumer warp: checks (both plans,
# 10 repeats), planted breakage, memcheck + racecheck, and the backward
# benchmark at D=256 (N 512..16k, causal both) with FA2 and cuDNN, the main
# kernel (variant main) and a timing-only variant without the dQ reductions
# (nored, wrong dQ) in the same rounds. Each step has a limit.
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=${OUT:-$here/out}; mkdir -p "$O"
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
B=$here/b90; P=$here/planted; V=$here/bvar
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'; } > "$O/env.txt" 2>&1
step check256 150 python3 -m flash_mlir.gpu_check --mode backward --bundles "$B" --head-dims 256 --deterministic both --repeat 10 --json "$O/check256.json"
step planted 45 python3 -m flash_mlir.gpu_check --mode backward --bundles "$P" --dtypes bf16 --causal yes --head-dims 256 --deterministic both --repeat 0 --shape 1,4,2,257,257 --shape 2,4,2,100,1000
for tool in memcheck racecheck; do
  step $tool 80 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
    python3 -m flash_mlir.gpu_check --mode backward --bundles "$B" --dtypes bf16 --causal yes --head-dims 256 --shape 1,4,2,150,70 --repeat 0 --deterministic both
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$O/$tool.log" | tee -a "$O/steps.txt"
done
step bench 170 python3 -m flash_mlir.bench --mode backward --bundles "$V" --head-dims 256 --seqlens 512,1024,2048,4096,8192,16384 --rounds 3 --rep-ms 30 --variants --json "$O/bench-backward.json"
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"
