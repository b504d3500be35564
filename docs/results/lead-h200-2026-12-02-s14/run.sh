#!/usr/bin/env bash
# Lead's H200 run on the merged main (2026-12-02, fourteenth session): the torch drop-in's checks
# with the eager autograd.Function path and the prepared backward (issue 19), the Hugging Face
# train-step profile after them, the torch op's checks, the GPT training check and the GPT-2
# medium attention shape, and forward + backward rows at D = 64/128 with the 128-row-Q-tile
# D = 64 backward (issue 16). Run from the repository root:
#   bash docs/results/lead-h200-2026-12-02-s14/run.sh STAGE OUT
# STAGE holds b90 (compile --arch sm_90a --ops forward,backward --lse both --head-dims 64,128,256
# --cubin-archs sm_90a), b80 (compile --arch sm_80 --ops forward --head-dims 64,128
# --cubin-archs sm_80) and libflash_runtime.so built from the same commit.
set -u
root=$(pwd); S=$(cd "$1" && pwd); O=$2; mkdir -p "$O"
export PYTHONPATH=$root/python FLASH_RUNTIME_LIB=$S/libflash_runtime.so FLASH_MLIR_BUNDLES=$S/b90 PYTHONUNBUFFERED=1
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"; }
{ date -u +%FT%TZ; git -C "$root" log --oneline -1 2>/dev/null; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)'; } > "$O/env.txt" 2>&1
step dropin-check 150 python3 scripts/gpu/torch-dropin-check.py --sm80 "$S/b80" --json "$O/dropin-checks.json"
step torch-op-check 70 python3 scripts/gpu/torch-op-check.py --bundles "$S/b90" --json "$O/torch-op.json"
mkdir -p /tmp/prof
step profile-train-step 120 python3 scripts/gpu/profile-train-step.py --out /tmp/prof
cp /tmp/prof/profile.json "$O/" 2>/dev/null
step train-check 110 python3 scripts/gpu/train-check.py --bundles "$S/b90" --steps 200 --json "$O/train.json"
step bench-train 80 python3 -m flash_mlir.bench --mode train --bundles "$S/b90" --head-dims 64,128 --seqlens 2048,8192 --rounds 3 --rep-ms 30 --json "$O/bench-train.json"
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"
