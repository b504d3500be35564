#!/usr/bin/env bash
# torch-dropin-6 (helper hD) H200 run: strided backward (preprocess and
# convert take strides) and batch maps as a default candidate. From a staging
# directory holding python/, scripts/gpu/, libflash_runtime.so and:
#   b90    sm_90a forward + backward, --batch-maps (bf16/f16, D 64/128, LSE both)
#   b80    main's sm_80 forward plans (the drop-in check's sm_80 library)
#   bench  bf16 D 64/128: rank-3 forward (= /work/baseline/sm90a) and backward
#          (this branch) as the defaults, the batch-maps plans renamed variant
#          "bm", main's backward (/work/baseline/sm90a-bwd) renamed "base"
# bash run.sh OUT  (each step with a time limit; results written as they come)
set -u
S=$(pwd); O=$1; mkdir -p "$O"
export FLASH_RUNTIME_LIB=$S/libflash_runtime.so FLASH_MLIR_BUNDLES=$S/b90 PYTHONUNBUFFERED=1
export PYTHONPATH=$S/python
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'; } > "$O/env.txt" 2>&1
step one-launch 30 python3 scripts/gpu/one-launch-profile.py --bundles "$S/b90" --label batch-maps --json "$O/one-launch.json"
step dropin-check 75 python3 scripts/gpu/torch-dropin-check.py --sm80 "$S/b80" --json "$O/dropin-checks.json"
step bench-backward 40 python3 -m flash_mlir.bench --mode backward --bundles "$S/bench" --variants --head-dims 64,128 --seqlens 1024,4096 --rounds 5 --rep-ms 20 --json "$O/bench-backward.json"
step bench-forward 35 python3 -m flash_mlir.bench --mode forward --bundles "$S/bench" --variants --head-dims 64,128 --seqlens 1024,4096 --rounds 5 --rep-ms 20 --json "$O/bench-forward.json"
step pytest-cpu-torch 20 python3 -m pytest -q -p no:cacheprovider python/tests/test_batch_maps.py python/tests/test_prepared_strided.py -k "library or prepared or copies"
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"
