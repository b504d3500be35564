#!/usr/bin/env bash
# The PyTorch drop-in on the GPU machine, in one go (docs/pytorch.md):
#   bash scripts/gpu/torch-dropin.sh WHEEL SM80_BUNDLE_DIR OUT_DIR
# 1. the wheel installed (--no-deps, --no-index: nothing is downloaded) into
#    a fresh venv that sees only the machine's torch environment (a .pth to
#    the site-packages that holds torch; --system-site-packages would see the
#    base interpreter's, not a torch venv's), then one call from /tmp;
#    the CPU tests of the drop-in with torch (python/tests/test_torch_sdpa.py)
# 2. scripts/gpu/hf-check.py             (hf.json, hf.log)
# 3. scripts/gpu/torch-dropin-check.py   (checks.json, checks.log)
# 4. scripts/bench/attention-host-time.py (host-time.json; B=4: host-time-b4.json;
#    their tables in wheel.log): 7 files in OUT_DIR
# Every step runs from the installed wheel (its bundles, its runtime).
set -u
wheel=$(readlink -f "$1"); sm80=$(readlink -f "$2"); out=$(readlink -f "$3")
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
log="$out/wheel.log"
{
  date -u
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import sys, torch; print(sys.executable, torch.__version__, torch.version.cuda)"
  python3 -c "import transformers; print('transformers', transformers.__version__)" ||
    echo "transformers: not importable"
  venv=/tmp/flash-venv
  rm -rf "$venv"
  python3 -m venv --without-pip "$venv"
  site=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  python3 -c "import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))" \
    > "$site/machine-torch.pth"
  echo "venv $venv sees: $(cat "$site/machine-torch.pth")"
  "$venv/bin/python" -m pip install --no-deps --no-index "$wheel"
  cd /tmp
  "$venv/bin/python" - <<'PY'
import torch, flash_mlir
from flash_mlir.torch import scaled_dot_product_attention as sdpa, default_library
from flash_mlir.runtime import capi
q, k, v = (torch.randn(2, 512, 8, 128, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
           for _ in range(3))
o = sdpa(q, k, v, is_causal=True)
ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
lib = default_library()
print("package:", flash_mlir.__file__)
print("runtime:", capi._LIB._name)
print("bundles:", lib.dir, len(lib.all), "plans")
print("one call: max|flash_mlir - torch SDPA| =", float((o.float() - ref.float()).abs().max()))
PY
  echo "--- pytest test_torch_sdpa.py test_prepared_strided.py (with torch) ---"
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "$here/python/tests/test_torch_sdpa.py" \
    "$here/python/tests/test_prepared_strided.py" 2>&1 | tail -5
} > "$log" 2>&1
py=/tmp/flash-venv/bin/python
cd /tmp
timeout 100 "$py" "$here/scripts/gpu/hf-check.py" --json "$out/hf.json" > "$out/hf.log" 2>&1
echo "hf-check: exit $?" >> "$log"
timeout 110 "$py" "$here/scripts/gpu/torch-dropin-check.py" --sm80 "$sm80" \
  --json "$out/checks.json" > "$out/checks.log" 2>&1
echo "checks: exit $?" >> "$log"
tail -3 "$out/checks.log" "$out/hf.log" >> "$log"
# The benchmarks' tables go to wheel.log (the device tool returns at most 8 files).
echo "--- host time (B=1 H=8 N=128 D=64) ---" >> "$log"
timeout 40 "$py" "$here/scripts/bench/attention-host-time.py" --rounds 9 --calls 200 \
  --json "$out/host-time.json" >> "$log" 2>&1
echo "host-time: exit $?" >> "$log"
echo "--- host time (B=4 H=8 N=128 D=64) ---" >> "$log"
timeout 40 "$py" "$here/scripts/bench/attention-host-time.py" --rounds 9 --calls 200 \
  --shape 4,8,128,64 --label "B=4: views launch once per entry" \
  --json "$out/host-time-b4.json" >> "$log" 2>&1
echo "host-time B=4: exit $?" >> "$log"
