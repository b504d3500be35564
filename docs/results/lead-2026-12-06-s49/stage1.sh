#!/usr/bin/env bash
# Stages run 1 of the forty-ninth session (README.md): every sm_90a decode plan of this
# checkout (main90) and the runtime, packed for the device tool.
#   run(command="tar xJf build/r49/s1.tar.xz -C build/r49 && bash build/r49/s1/run1.sh",
#       kind="nvidia-h200", carry=["build/r49/s1.tar.xz"])
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
out=build/r49/s1
export PYTHONPATH=$PWD/python
rm -rf "$out"
mkdir -p "$out"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/main90" > /dev/null
bash scripts/bench/pack-stage.sh "$out" docs/results/lead-2026-12-06-s49
