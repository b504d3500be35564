#!/usr/bin/env bash
# Stages run 1 of the fifty-eighth session: main90, every sm_90a decode plan of main's
# flash-opt (the grid bounded by the cache's capacity since 3f56405), checked
# cmp-identical, plan JSON and cubins, to the fifty-seventh session's new90, which its
# run 5 checked with decode_check and timed only on the rows the grid change touched.
#   bash scripts/build.sh && bash docs/results/lead-2026-12-07-s58/stage1.sh
#   run(command="tar xJf build/r58/s1.tar.xz -C build/r58 && bash build/r58/s1/run1.sh",
#       carry=["build/r58/s1.tar.xz"], kind="nvidia-h200")
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-07-s58
out=build/r58/s1
export PYTHONPATH=$PWD/python
rm -rf "$out" "$out.tar.xz"
mkdir -p "$out"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/main90" \
  --flash-opt build/bin/flash-opt > /dev/null
python3 -m flash_mlir.tools.check_bundles "$out/main90" | tail -1
for f in build/r57/s3/new90/*.cubin build/r57/s3/new90/*.json; do
  cmp "$f" "$out/main90/$(basename "$f")"
done
echo "main90's cubins and plans cmp-identical to s57's new90"
bash scripts/bench/pack-stage.sh "$out" "$here"
