#!/usr/bin/env bash
# h6 (torch-dropin-4) H200 run: HF train-step profile with main's Python tree (before) and
# this branch's (after), then the drop-in checks of the changed backward. bash run.sh OUT
set -u
S=$(pwd); O=$1; mkdir -p "$O/res"
export FLASH_RUNTIME_LIB=$S/libflash_runtime.so FLASH_MLIR_BUNDLES=$S/b90 PYTHONUNBUFFERED=1
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/res/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/res/$name.log" | cut -c1-300)" | tee -a "$O/res/steps.txt"; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)'; } > "$O/res/env.txt" 2>&1
for t in python main/python; do PYTHONPATH=$S/$t python3 -c 'import flash_mlir.torch as f; print(f.__file__, "_contiguous_all" in dir(f))' >> "$O/res/env.txt" 2>&1; done
mkdir -p /tmp/pa /tmp/pb
PYTHONPATH=$S/python step profile-after 60 python3 scripts/gpu/profile-train-step.py --out /tmp/pa
PYTHONPATH=$S/main/python step profile-before 60 python3 scripts/gpu/profile-train-step.py --out /tmp/pb
cp /tmp/pa/profile.json "$O/res/profile-after.json"; cp /tmp/pb/profile.json "$O/res/profile-before.json"
PYTHONPATH=$S/python step dropin-check 70 python3 scripts/gpu/torch-dropin-check.py --sm80 "$S/b80" --only "grads,forward,cuda graph backward,compile" --json "$O/res/dropin-checks.json"
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/res/steps.txt"
cp "$S/run.sh" "$O/res/"
tar -czf "$O/h6-results.tgz" -C "$O" res && rm -rf "$O/res"
