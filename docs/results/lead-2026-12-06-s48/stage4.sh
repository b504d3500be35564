#!/usr/bin/env bash
# Stages run 4 of the forty-eighth session (README.md), on branch s48-cluster with the pair
# merge built in: every sm_90a decode plan of this checkout (new90: the fused split kernels
# carry the pair merge and the plans their "cluster"), and main 98fa1d3's bf16 D = 128 plans
# (base: this compiler's plans without the pair merge are main's; run 3's base). The runtime
# packed is this checkout's (it forms the clusters; base's plans have none).
#   run(command="tar xJf build/r48/s4.tar.xz -C build/r48 && bash build/r48/s4/run4.sh",
#       carry=["build/r48/s4.tar.xz"])
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
out=build/r48/s4
export PYTHONPATH=$PWD/python
rm -rf "$out"
mkdir -p "$out"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/new90" > /dev/null
cp -r build/r48/s3/base "$out/base"
bash scripts/bench/pack-stage.sh "$out" docs/results/lead-2026-12-06-s48
