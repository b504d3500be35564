#!/usr/bin/env bash
# h2 run 2: where the D=256 backward's time goes: bench --variants (the
# deterministic plan, nored = dQ GEMMs without the f32 reductions, nodq = no dQ
# at all; the last two give wrong dQ, timing only).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
out=${OUT:-/tmp/h2-out}; mkdir -p "$out"
timeout 200 python3 -m flash_mlir.bench --mode backward --bundles "$here/bundles" --head-dims 256 \
  --seqlens 8192,16384 --rounds 3 --variants --json "$out/bench-variants.json" > "$out/bench-variants.log" 2>&1
echo "bench rc=$?"; tail -12 "$out/bench-variants.log"
