#!/usr/bin/env bash
# One H200 run for rank-4 tensor maps (batch maps) in the PyTorch drop-in
# (docs/pytorch.md, "Strided inputs"). From a staging directory holding
# python/, scripts/gpu/, libflash_runtime.so and three bundle directories:
#   b90    sm_90a forward + backward, compile --batch-maps (rank-4 maps)
#   b90r3  the same keys with rank-3 maps (the shipped kernels)
#   b80    sm_80 forward plans (the drop-in check's sm_80 library)
# bash torch-dropin-5-run.sh OUT  ->  OUT/hD-results.tgz
set -u
S=$(pwd); O=$1; mkdir -p "$O/res"
export FLASH_RUNTIME_LIB=$S/libflash_runtime.so FLASH_MLIR_BUNDLES=$S/b90 PYTHONUNBUFFERED=1
export PYTHONPATH=$S/python
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/res/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/res/$name.log" | cut -c1-300)" | tee -a "$O/res/steps.txt"; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)'; } > "$O/res/env.txt" 2>&1
step one-launch-b90 30 python3 scripts/gpu/one-launch-profile.py --bundles "$S/b90" --label batch-maps --json "$O/res/one-launch-b90.json"
step dropin-check 75 python3 scripts/gpu/torch-dropin-check.py --sm80 "$S/b80" --json "$O/res/dropin-checks.json"
mkdir -p /tmp/pt
step train-step 45 python3 scripts/gpu/profile-train-step.py --out /tmp/pt --baseline-bundles "$S/b90r3"
cp /tmp/pt/profile.json "$O/res/train-step.json" 2>/dev/null
step one-launch-b90r3 25 python3 scripts/gpu/one-launch-profile.py --bundles "$S/b90r3" --label rank-3 --json "$O/res/one-launch-b90r3.json"
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/res/steps.txt"
cp "$S/scripts/gpu/torch-dropin-5-run.sh" "$O/res/run.sh"
tar -czf "$O/hD-results.tgz" -C "$O" res && rm -rf "$O/res"
