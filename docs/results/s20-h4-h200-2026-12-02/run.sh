#!/usr/bin/env bash
# H4 (branch s20-h4) H200 run: programmatic dependent launch in the sm_90a backward chain
# (preprocess -> main -> convert). The branch's bundles (`chk`: every sm_90a backward plan,
# bf16/f16 x D 64/128/256 x causal both x both plans) checked with NaN-poisoned outputs,
# 5 deterministic repeats and CUDA-graph capture/replay; two planted bugs (`plant-main`: the
# main kernel's griddepcontrol.waits removed; `plant-conv`: the convert's removed), a
# control with the preprocess delayed 20 us after its trigger (`slow-ok`, must pass) and the
# same with the main kernel's waits removed (`slow-main`, must fail);
# memcheck + racecheck on a small case; the backward benchmark with main 67f485d's kernels
# (variant `main`) and the preprocess->main part alone (variant `pre`) in the same
# interleaved rounds as SDPA FA2/cuDNN. Every step has a limit; all output is tarred into
# $OUT/res.tgz after each step.
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
step smoke 40 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/chk" --dtypes bf16 --head-dims 128 --causal yes --deterministic no --repeat 0 --shape 1,4,2,300,270
grep -q "^smoke rc=124" "$O/steps.txt" && { echo "smoke hung: stop" | tee -a "$O/steps.txt"; exit 1; }
step check 90 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/chk" --deterministic both --repeat 5 --graph --seed 2001 --json "$O/check.json"
step plant-main 40 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/plant-main" --dtypes bf16 --deterministic no --repeat 0 --seed 2002
step plant-conv 40 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/plant-conv" --dtypes bf16 --deterministic no --repeat 0 --seed 2003
step slow-ok 40 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/slow-ok" --dtypes bf16 --deterministic no --repeat 0 --seed 2004
step slow-main 40 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/slow-main" --dtypes bf16 --deterministic no --repeat 0 --seed 2005
for tool in memcheck racecheck; do
  step $tool 60 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
    python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/chk" --dtypes bf16 --head-dims 128,256 --causal yes --shape 1,4,2,300,270 --repeat 0 --deterministic no
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$O/$tool.log" | tee -a "$O/steps.txt"
done
step bench 100 python3 -m flash_mlir.bench --mode backward --bundles "$here/bench" --head-dims 64,128 --seqlens 512,1024,2048,4096 --rounds 7 --rep-ms 25 --variants --json "$O/bench.json"
grep ^backward "$O/bench.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
step bench-else 60 python3 -m flash_mlir.bench --mode backward --bundles "$here/bench" --head-dims 64,128,256 --seqlens 8192 --rounds 3 --rep-ms 25 --variants --json "$O/bench-else.json"
grep ^backward "$O/bench-else.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
