#!/usr/bin/env bash
# h4's H200 run (2026-12-02, fourteenth session): the full wheel installed and used,
# the HF train-step profile, host time (this branch and main), the drop-in checks.
set -u
here=$(cd "$(dirname "$0")" && pwd); out=$1; log=$out/run.log
export PYTHONUNBUFFERED=1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import sys, torch, transformers; print(sys.executable, torch.__version__, torch.version.cuda, 'transformers', transformers.__version__)"; } > "$log" 2>&1
venv=/tmp/flash-venv; rm -rf $venv; python3 -m venv --without-pip $venv
site=$($venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
python3 -c "import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))" > "$site/machine-torch.pth"
$venv/bin/python -m pip install --no-deps --no-index "$here"/flash_mlir-*.whl >> "$log" 2>&1
cd /tmp
timeout 60 env -u PYTHONPATH -u FLASH_RUNTIME_LIB -u FLASH_MLIR_BUNDLES $venv/bin/python "$here/wheel_check.py" > "$out/wheel.log" 2>&1
echo "wheel check: exit $?" >> "$log"
B=$site/flash_mlir/bundles; mkdir -p /tmp/b80; cp $B/flash_*_sm_80_* /tmp/b80/
export FLASH_MLIR_BUNDLES=$B FLASH_RUNTIME_LIB=$site/flash_mlir/lib/libflash_runtime.so
( PYTHONPATH=$here/python timeout 40 python3 "$here/probe.py" > /tmp/probe.log 2>&1 ) &
mkdir -p /tmp/prof
PYTHONPATH=$here/python timeout 110 python3 "$here/scripts/gpu/profile-train-step.py" --out /tmp/prof > "$out/profile.log" 2>&1
rc=$?; wait; cat /tmp/probe.log >> "$log"; echo "profile: exit $rc" >> "$log"; cp /tmp/prof/profile.json "$out/" ; (cd /tmp/prof && tar czf "$out/tables.tar.gz" *.txt)
PYTHONPATH=$here/python timeout 120 python3 "$here/scripts/gpu/torch-dropin-check.py" --sm80 /tmp/b80 \
  --json "$out/checks.json" > "$out/checks.log" 2>&1
echo "checks: exit $?" >> "$log"; tail -2 "$out/checks.log" >> "$log"
mkdir -p /tmp/ht
for tree in python python-main; do for shape in 1,8,128,64 4,8,128,64; do
  echo "--- host time $tree $shape ---" >> "$log"
  PYTHONPATH=$here/$tree timeout 40 python3 "$here/scripts/bench/attention-host-time.py" --rounds 9 --calls 200 \
    --shape $shape --label "$tree" --json /tmp/ht/$tree-$shape.json >> "$log" 2>&1
  echo "exit $?" >> "$log"
  (cd /tmp/ht && tar czf "$out/host-time.tar.gz" *.json)
done; done

