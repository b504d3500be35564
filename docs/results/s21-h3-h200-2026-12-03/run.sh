#!/usr/bin/env bash
# H3 (branch s21-h3) H200 run: the sm_90a backward's preprocess and dQ convert with each
# thread's loads of N row passes issued together (N = 4, 8, 16; main 55d5f04: one pass at a
# time). Bench first (p8 default, p4/p16/main variants, SDPA FA2/cuDNN in the same
# interleaved rounds), then the checks of every candidate (NaN-poisoned outputs, 5
# deterministic repeats, CUDA-graph replays), a planted bug, memcheck + racecheck, per-kernel
# times (torch.profiler), the long rows. Every step has a limit; output tarred after each.
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
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'; } > "$O/env.txt" 2>&1
GC="python3 -m flash_mlir.gpu_check --mode backward"
step smoke 30 $GC --bundles "$here/chk-p8" --dtypes bf16 --head-dims 128 --causal yes --deterministic no --repeat 0 --shape 1,4,2,300,270
grep -q "^smoke rc=124" "$O/steps.txt" && { echo "smoke hung: stop" | tee -a "$O/steps.txt"; exit 1; }
step bench 100 python3 -m flash_mlir.bench --mode backward --bundles "$here/bench" --head-dims 64,128 --seqlens 512,1024,2048,4096 --rounds 7 --rep-ms 25 --variants --json "$O/bench.json"
grep ^backward "$O/bench.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
for n in 8 4 16; do
  step check-p$n 40 $GC --bundles "$here/chk-p$n" --deterministic both --repeat 5 --graph --seed 210$n --json "$O/check-p$n.json"
done
step plant 30 $GC --bundles "$here/plant" --dtypes bf16 --deterministic no --repeat 0 --seed 2110
for tool in memcheck racecheck; do
  step $tool 45 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
    $GC --bundles "$here/chk-p8" --dtypes bf16 --head-dims 64,128 --causal yes --shape 1,4,2,300,270 --repeat 0 --deterministic no
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$O/$tool.log" | tee -a "$O/steps.txt"
done
step prof 45 python3 prof.py "$here/bench" 128,64 512,2048
step bench-else 60 python3 -m flash_mlir.bench --mode backward --bundles "$here/bench" --head-dims 64,128,256 --seqlens 8192 --rounds 3 --rep-ms 25 --variants --json "$O/bench-else.json"
grep ^backward "$O/bench-else.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
step bench-256 40 python3 -m flash_mlir.bench --mode backward --bundles "$here/bench" --head-dims 256 --seqlens 512,2048 --rounds 3 --rep-ms 25 --variants --json "$O/bench-256.json"
grep ^backward "$O/bench-256.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
