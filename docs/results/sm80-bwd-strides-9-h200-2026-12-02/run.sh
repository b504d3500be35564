#!/usr/bin/env bash
# H3 (sm80-bwd-strides-9) H200 run: the sm_80 backward's strided twins (gpu_check on B×N×H×D
# inputs and NaN-poisoned B×N×H×D gradient buffers, every plan of each key; a planted twin;
# memcheck; torch.profiler on autograd with B×N×H×D leaves; twin vs shipped timing on strided
# views) and the D = 256 causal two-stage plan without its spill against main's. Every step
# has a limit; everything is tarred into $OUT/res.tgz after each step.
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=$(mktemp -d); export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"
  tar czf "${OUT:-$here}/res.tgz" -C "$O" .; }
finish() { echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; tar czf "${OUT:-$here}/res.tgz" -C "$O" .; }
trap finish EXIT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'; } > "$O/env.txt" 2>&1
GC="python3 -m flash_mlir.gpu_check --mode backward --variants --repeat 0"
step smoke 30 $GC --bundles b80s --dtypes bf16 --head-dims 64 --causal yes --deterministic no --layout bnhd --shape 2,8,2,300,300
grep -q "^smoke rc=0" "$O/steps.txt" || { echo "smoke failed: stop" | tee -a "$O/steps.txt"; exit 1; }
step check 70 $GC --bundles b80s --dtypes bf16 --deterministic both --layout bnhd --seed 1903 --shape 1,2,2,77,77 --shape 2,8,2,257,257 --shape 1,4,2,1000,100 --json "$O/check.json"
step planted 30 $GC --bundles planted --dtypes bf16 --head-dims 64,128 --deterministic both --layout bnhd --seed 1905 --shape 2,8,2,257,257 --shape 1,4,2,1000,100 --json "$O/planted.json"
step prof 40 python3 strided-bwd-check.py b80s --json "$O/prof.json"
step bench-strided 45 python3 bench-strided.py --twins b80s --plain b80p --seqlens 4096 --rounds 5 --reps 3 --json "$O/bench-strided.json"
step bench256 40 python3 -m flash_mlir.bench --mode backward --bundles b256 --head-dims 256 --causal yes --seqlens 1024,4096,16384 --rounds 3 --rep-ms 30 --variants --json "$O/bench256.json"
step memcheck 60 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool memcheck --kernel-name kns=flash_bwd --error-exitcode 3 $GC --bundles b80s --dtypes bf16 --head-dims 64,256 --causal yes --deterministic both --layout bnhd --shape 2,4,2,150,70
grep -E "ERROR SUMMARY" "$O/memcheck.log" | tee -a "$O/steps.txt"
step check-f16 40 $GC --bundles b80s --dtypes f16 --head-dims 64,128 --deterministic both --layout bnhd --seed 1904 --shape 2,8,2,257,257 --shape 1,4,2,513,130 --json "$O/check-f16.json"
step prof-plain 30 python3 strided-bwd-check.py b80p --expect-copies --head-dims 64 --dtypes bf16 --deterministic no --json "$O/prof-plain.json"
