#!/usr/bin/env bash
# Stages run 7 of the forty-eighth session (README.md), on branch s48-clusters: the cluster
# merge (clusters of 2 to 8 blocks, grid x of 2 to 8) in every sm_90a decode plan (new90),
# against main 98fa1d3's bf16 D = 128 plans (base, run 3's). Keeps the new PTX in
# build/r48/ptx-new90c for the identity check.
#   run(command="tar xJf build/r48/s7.tar.xz -C build/r48 && bash build/r48/s7/run7.sh",
#       carry=["build/r48/s7.tar.xz"])
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
out=build/r48/s7
export PYTHONPATH=$PWD/python
rm -rf "$out" build/r48/ptx-new90c
mkdir -p "$out"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/new90" > /dev/null
cp -r "$out/new90" build/r48/ptx-new90c
cp -r build/r48/s3/base "$out/base"
bash scripts/bench/pack-stage.sh "$out" docs/results/lead-2026-12-06-s48
