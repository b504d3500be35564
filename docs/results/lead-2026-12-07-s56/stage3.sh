#!/usr/bin/env bash
# Stages run 3 of the fifty-sixth session (README.md): fin90, every sm_90a decode plan of
# branch s54-ef-gate with the evict-unchanged policy under the gate's bound (this
# session's commit), compiled by that branch's flash-opt (build/bin/flash-opt, no spill or
# stack frame: check_bundles), with main90 from build/r54/s1.
#   git checkout s54-ef-gate && bash scripts/build.sh
#   bash docs/results/lead-2026-12-07-s56/stage3.sh
#   run(command="tar xJf build/r56/s3.tar.xz -C build/r56 && bash build/r56/s3/run3.sh",
#       carry=["build/r56/s3.tar.xz"], kind="nvidia-h100-x1")
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-07-s56
out=build/r56/s3
export PYTHONPATH=$PWD/python
rm -rf "$out" "$out.tar.xz"
mkdir -p "$out"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/fin90" \
  --flash-opt build/bin/flash-opt > /dev/null
python3 -m flash_mlir.tools.check_bundles "$out/fin90" | tail -1   # exits 1 on a spill or stack frame
cp -r build/r54/s1/main90 "$out/"
bash scripts/bench/pack-stage.sh "$out" "$here"
