#!/usr/bin/env bash
# Lead's H200 run, eighteenth session: --batch-maps variant (rank-3 plans + rank-4 twins).
# b90: sm_90a bf16/f16 D 64/128 forward + backward, --batch-maps variant (main 94997f0)
# b90r3: the same minus the twins (= a rank-3-only library); b80: sm_80 forward (sm_90 cubins)
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so FLASH_MLIR_BUNDLES=$S/b90 PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)'; } > "$O/env.txt" 2>&1
step one-launch 40 python3 scripts/gpu/one-launch-profile.py --bundles "$S/b90" --label batch-maps-variant --json "$O/one-launch.json"
step one-launch-r3 40 python3 scripts/gpu/one-launch-profile.py --bundles "$S/b90r3" --label rank3 --json "$O/one-launch-r3.json"
step dropin-check 100 python3 scripts/gpu/torch-dropin-check.py --sm80 "$S/b80" --json "$O/dropin-checks.json"
step gpu-check-bwd 60 python3 -m flash_mlir.gpu_check --mode backward --bundles "$S/b90" --variants --dtypes bf16 --seed 1801 --json "$O/gpu-check-bwd.json"
step gpu-check-fwd 40 python3 -m flash_mlir.gpu_check --bundles "$S/b90" --variants --dtypes bf16 --seed 1802 --json "$O/gpu-check-fwd.json"
step train-step 120 python3 scripts/gpu/profile-train-step.py --out "$O/train" --baseline-bundles "$S/b90r3"
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"
tar czf "$OUT/res.tgz" -C "$O" .
cp "$O/steps.txt" "$OUT/"
