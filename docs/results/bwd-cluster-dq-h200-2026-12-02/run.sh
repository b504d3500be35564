#!/usr/bin/env bash
# hA (bwd-cluster-dq) H200 run: the D=256 sm_90a backward with a cluster of
# two blocks adding their dQ through distributed shared memory (block_kv =
# 128 = 2 x 64): gradient checks (both plans, NaN-poisoned, 10 repeats), a
# planted breakage, memcheck + racecheck (causal, both plans), and the
# backward benchmark at D=256 with main's kernel as variant `main`, FA2 and
# cuDNN in the same interleaved rounds. Each step has a limit; all output
# is tarred into $OUT/hA-out.tar.gz.
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=$here/out; mkdir -p "$O"
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"; }
finish() { echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"
  tar czf "${OUT:-$here}/hA-out.tar.gz" -C "$O" .; }
trap finish EXIT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'; } > "$O/env.txt" 2>&1
# a first smoke test, so that a hang shows early and cheaply
step smoke 30 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/bcl" --dtypes bf16 --causal yes --head-dims 256 --deterministic no --repeat 0 --shape 1,4,2,300,270
grep -q "^smoke rc=124" "$O/steps.txt" && { echo "smoke hung: stop" | tee -a "$O/steps.txt"; exit 1; }
step check256 90 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/bcl" --head-dims 256 --deterministic both --repeat 10 --json "$O/check256.json"
step planted 30 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/planted" --dtypes bf16 --head-dims 256 --deterministic no --repeat 0 --shape 1,4,2,257,257 --shape 2,4,2,100,1000
for tool in memcheck racecheck; do
  step $tool 60 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
    python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/bcl" --dtypes bf16 --causal yes --head-dims 256 --shape 1,4,2,300,270 --repeat 0 --deterministic both
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$O/$tool.log" | tee -a "$O/steps.txt"
done
step bench 150 python3 -m flash_mlir.bench --mode backward --bundles "$here/bvar" --head-dims 256 --seqlens 512,1024,2048,4096,8192,16384 --rounds 3 --rep-ms 30 --variants --json "$O/bench-backward.json"
grep ^backward "$O/bench.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
