#!/usr/bin/env bash
# Stages run 6 of the forty-eighth session (README.md): the final pair merge (its kernels also
# check %cluster_nctaid.x) as merged, every sm_90a decode plan (new90), against main 98fa1d3's
# bf16 D = 128 plans (base, run 3's). Keeps the new PTX in build/r48/ptx-new90 for the
# identity check (pack-stage drops it from the stage).
#   run(command="tar xJf build/r48/s6.tar.xz -C build/r48 && bash build/r48/s6/run6.sh",
#       carry=["build/r48/s6.tar.xz"])
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
out=build/r48/s6
export PYTHONPATH=$PWD/python
rm -rf "$out" build/r48/ptx-new90
mkdir -p "$out"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/new90" > /dev/null
cp -r "$out/new90" build/r48/ptx-new90
cp -r build/r48/s3/base "$out/base"
bash scripts/bench/pack-stage.sh "$out" docs/results/lead-2026-12-06-s48
