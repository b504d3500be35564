#!/usr/bin/env bash
# h4's second H200 run: the HF train-step profile and the gradient checks after the
# prepared backward call (commit 5535030's python tree), bundles from the full wheel.
set -u
here=$(cd "$(dirname "$0")" && pwd); out=$1; log=$out/run2.log
export PYTHONUNBUFFERED=1
date -u > "$log"
venv=/tmp/flash-venv; rm -rf $venv; python3 -m venv --without-pip $venv
site=$($venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
$venv/bin/python -m pip install -q --no-deps --no-index "$here"/flash_mlir-*.whl >> "$log" 2>&1
B=$site/flash_mlir/bundles
export FLASH_MLIR_BUNDLES=$B FLASH_RUNTIME_LIB=$site/flash_mlir/lib/libflash_runtime.so PYTHONPATH=$here/python
cd /tmp; mkdir -p /tmp/prof
timeout 60 python3 "$here/scripts/gpu/profile-train-step.py" --out /tmp/prof > "$out/profile2.log" 2>&1
echo "profile: exit $?" >> "$log"; cp /tmp/prof/profile.json "$out/profile2.json"; (cd /tmp/prof && tar czf "$out/tables2.tar.gz" *.txt)
timeout 50 python3 "$here/scripts/gpu/torch-dropin-check.py" --only "grads,prepared strided,cuda graph backward,compile" \
  --json "$out/checks2.json" > "$out/checks2.log" 2>&1
echo "checks: exit $?" >> "$log"; tail -2 "$out/checks2.log" >> "$log"
