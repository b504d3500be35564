#!/usr/bin/env bash
# Stages run 5 of the fifty-seventh session: new90 and new80, every sm_90a and sm_80
# decode plan of this session's flash-opt (the grid bounded by the cache's capacity;
# sm_80's with sm_90 cubins, to run on the H100), ship90 (stage1.sh's) and old80 (new80
# with the grid as before, grid-edit.py; the same edit of new90 gives ship90's plans
# exactly, checked here).
#   bash scripts/build.sh && bash docs/results/lead-2026-12-07-s57/stage5.sh
#   run(command="tar xJf build/r57/s3.tar.xz -C build/r57 && bash build/r57/s3/run5.sh",
#       carry=["build/r57/s3.tar.xz"], kind="nvidia-h100-x1")
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-07-s57
out=build/r57/s3
export PYTHONPATH=$PWD/python
rm -rf "$out" "$out.tar.xz"
mkdir -p "$out"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/new90" \
  --flash-opt build/bin/flash-opt > /dev/null
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_80 --cubin-archs sm_90 \
  --out "$out/new80" --flash-opt build/bin/flash-opt > /dev/null
python3 -m flash_mlir.tools.check_bundles "$out/new90" | tail -1
python3 -m flash_mlir.tools.check_bundles "$out/new80" | tail -1
for c in build/r57/s1/ship90/*.cubin; do cmp "$c" "$out/new90/$(basename "$c")"; done
echo "new90's cubins cmp-identical to ship90's"
python3 "$here/grid-edit.py" "$out/new90" "$out/chk90" --against build/r57/s1/ship90
rm -rf "$out/chk90"
python3 "$here/grid-edit.py" "$out/new80" "$out/old80"
cp -r build/r57/s1/ship90 "$out/"
bash scripts/bench/pack-stage.sh "$out" "$here"
