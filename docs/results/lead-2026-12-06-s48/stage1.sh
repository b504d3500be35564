#!/usr/bin/env bash
# Stages run 1 of the forty-eighth session (README.md): main's bf16 D = 128 sm_90a decode
# plans, for timing rows whose work units leave some SMs idle against rows that fill them.
#   run(command="tar xJf build/r48/s1.tar.xz -C build/r48 && bash build/r48/s1/run1.sh",
#       carry=["build/r48/s1.tar.xz"])
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
out=build/r48/s1
export PYTHONPATH=$PWD/python
rm -rf "$out"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --dtypes bf16 --head-dims 128 \
  --out "$out/main90" > /dev/null
bash scripts/bench/pack-stage.sh "$out" docs/results/lead-2026-12-06-s48
