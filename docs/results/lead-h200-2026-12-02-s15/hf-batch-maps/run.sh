set -u
S=$(pwd)/build/lead-run; O=$OUT/r; mkdir -p $O
export PYTHONPATH=$(pwd)/python FLASH_RUNTIME_LIB=$S/libflash_runtime.so FLASH_MLIR_BUNDLES=$S/b90 PYTHONUNBUFFERED=1
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)'; } > $O/env.txt 2>&1
mkdir -p /tmp/pt
timeout 150 python3 scripts/gpu/profile-train-step.py --out /tmp/pt --steps 20 --baseline-bundles $S/b90r3 > $O/train-step.log 2>&1; echo rc=$? >> $O/train-step.log
cp /tmp/pt/profile.json $O/ 2>/dev/null
tail -25 $O/train-step.log
tar czf $OUT/r.tgz -C $OUT r
