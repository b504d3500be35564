#!/usr/bin/env bash
# On the GPU machine: the embedding example's end-to-end check (docs/embedding.md).
# DIR is what build.sh made (driver, block.o's driver linked, libflash_runtime.so,
# bundles/) plus check.py; results go to OUT.
#   bash gpu-check.sh DIR OUT [N] [D]
set -uo pipefail
dir=$1 out=$2 seq=${3:-1024} head_dim=${4:-64}
cd "$dir"
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'; } > "$out/env.txt" 2>&1
rc=0
# The check: both outputs against torch (FlashAttention's criterion, NaN-poisoned).
python3 check.py --dir . --seq "$seq" --head-dim "$head_dim" --out "$out/check.json" \
  > "$out/check.txt" 2>&1 || rc=1
# A planted bug (the reference's second scale 0.13 instead of 0.125): must fail.
if python3 check.py --dir . --seq "$seq" --head-dim "$head_dim" --plant-scale 0.13 \
    --out "$out/planted.json" > "$out/planted.txt" 2>&1; then
  echo "planted bug NOT caught" >> "$out/planted.txt"; rc=1
else
  echo "planted bug caught (check failed as it must)" >> "$out/planted.txt"
fi
# compute-sanitizer memcheck over the driver (every kernel of both functions).
if command -v compute-sanitizer >/dev/null; then
  python3 check.py --dir . --seq "$seq" --head-dim "$head_dim" \
    --wrapper "compute-sanitizer --tool memcheck --error-exitcode 3" \
    --out "$out/memcheck.json" > "$out/memcheck.txt" 2>&1 || rc=1
fi
cat "$out/check.txt" "$out/planted.txt"; tail -5 "$out/memcheck.txt" 2>/dev/null
exit $rc
