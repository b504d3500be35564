set -u
S=build/lead-run; O=$OUT/r; mkdir -p $O
export PYTHONPATH=$(pwd)/python FLASH_RUNTIME_LIB=$S/libflash_runtime.so FLASH_MLIR_BUNDLES=$S/b90 PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/env.txt
python3 -c 'import torch; print("torch", torch.__version__)' >> $O/env.txt
timeout 200 python3 scripts/gpu/train-check.py --bundles $S/b90 --steps 200 --dropin --profile $O/prof --json $O/train.json > $O/train-check.log 2>&1; echo rc=$? >> $O/train-check.log
tail -20 $O/train-check.log
tar czf $OUT/r.tgz -C $OUT r
