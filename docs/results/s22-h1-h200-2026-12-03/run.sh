#!/usr/bin/env bash
# H1 (branch s22-h1) H200 run: the sm_90a backward's main kernel at short N (stage.sh says
# what each bundle directory holds). Bench first (se default; main 2485bd3, skip, exit, all
# as variants; SDPA FA2/cuDNN in the same interleaved rounds), then the checks of every
# candidate (NaN-poisoned outputs, 5 deterministic repeats, CUDA-graph replays), the planted
# bug, memcheck + racecheck, per-kernel times, the other rows. Every step has a limit.
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
step smoke 30 $GC --bundles "$here/chk-all" --dtypes bf16 --head-dims 128 --causal yes --deterministic both --repeat 0 --shape 1,4,2,300,270
grep -q "^smoke rc=124" "$O/steps.txt" && { echo "smoke hung: stop" | tee -a "$O/steps.txt"; exit 1; }
step bench 110 python3 -m flash_mlir.bench --mode backward --bundles "$here/bench" --head-dims 128,64 --seqlens 512,1024,2048,4096 --rounds 7 --rep-ms 25 --variants --json "$O/bench.json"
grep ^backward "$O/bench.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
for v in se all skip exit; do
  step check-$v 40 $GC --bundles "$here/chk-$v" --deterministic both --repeat 5 --graph --seed 2201 --json "$O/check-$v.json"
done
step plant 30 $GC --bundles "$here/plant" --dtypes bf16 --deterministic no --repeat 0 --seed 2202
for tool in memcheck racecheck; do
  step $tool 45 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
    $GC --bundles "$here/chk-all" --dtypes bf16 --head-dims 128 --causal yes --shape 1,4,2,300,270 --repeat 0 --deterministic both
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$O/$tool.log" | tee -a "$O/steps.txt"
done
step bench-else 50 python3 -m flash_mlir.bench --mode backward --bundles "$here/bench" --head-dims 128 --seqlens 8192 --rounds 3 --rep-ms 25 --variants --json "$O/bench-else.json"
grep ^backward "$O/bench-else.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
step bench-256 35 python3 -m flash_mlir.bench --mode backward --bundles "$here/bench" --head-dims 256 --seqlens 2048 --rounds 3 --rep-ms 25 --variants --json "$O/bench-256.json"
grep ^backward "$O/bench-256.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
step prof 30 python3 prof.py "$here/bench" 128 512,1024
