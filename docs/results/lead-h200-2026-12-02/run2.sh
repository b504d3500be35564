#!/usr/bin/env bash
set -u
here=$(cd "$(dirname "$0")" && pwd); out=$1
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so FLASH_MLIR_BUNDLES=$here/b90
cd /tmp
timeout 100 python3 "$here/probe.py" torch,ours,ours > "$out/probe-torch-first.log" 2>&1
timeout 100 python3 "$here/probe.py" ours,torch > "$out/probe-ours-first.log" 2>&1
grep -h "PASS\|FAIL" "$out"/probe-*.log
