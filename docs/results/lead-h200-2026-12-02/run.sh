#!/usr/bin/env bash
# Lead's H200 check of the merged main (2026-12-02, thirteenth session): the torch drop-in's
# checks and the Hugging Face comparison from the source tree (not the wheel).
set -u
here=$(cd "$(dirname "$0")" && pwd); out=$1
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so FLASH_MLIR_BUNDLES=$here/b90
cd /tmp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/env.log"
python3 -c "import torch, transformers; print(torch.__version__, torch.version.cuda, transformers.__version__)" >> "$out/env.log" 2>&1
timeout 200 python3 "$here/scripts/gpu/torch-dropin-check.py" --sm80 "$here/b80" --json "$out/checks.json" > "$out/checks.log" 2>&1
echo "checks: exit $?" >> "$out/env.log"
timeout 120 python3 "$here/scripts/gpu/hf-check.py" --json "$out/hf.json" > "$out/hf.log" 2>&1
echo "hf-check: exit $?" >> "$out/env.log"
grep -c "^PASS" "$out/checks.log" >> "$out/env.log"; grep "^FAIL" "$out/checks.log" >> "$out/env.log"
