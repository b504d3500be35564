#!/usr/bin/env bash
# torch-dropin-check.py with the harness warm-up capture (torch's SDPA first), merged main.
set -u
here=$(cd "$(dirname "$0")" && pwd); out=$1
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so FLASH_MLIR_BUNDLES=$here/b90
cd /tmp
timeout 200 python3 "$here/scripts/gpu/torch-dropin-check.py" --sm80 "$here/b80" --json "$out/checks-run3.json" > "$out/checks-run3.log" 2>&1
echo "checks: exit $?"
grep -c "^PASS" "$out/checks-run3.log"; grep "^FAIL" "$out/checks-run3.log"; grep "CUDA graph" "$out/checks-run3.log" | cut -c1-400
