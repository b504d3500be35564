#!/usr/bin/env bash
# Stages run 1 of the fifty-seventh session (README.md): ship90, every sm_90a decode plan
# main compiles (build/bin/flash-opt of main 52226e9, whose code is 789d810's; its cubins
# checked `cmp`-identical to the fifty-sixth session's run 3 `fin90`), and main90, the plans before the per-call L2
# policy (the fifty-fourth session's stage, build/r54/s1).
#   bash scripts/build.sh && bash docs/results/lead-2026-12-07-s57/stage1.sh
#   run(command="tar xJf build/r57/s1.tar.xz -C build/r57 && bash build/r57/s1/run1.sh",
#       carry=["build/r57/s1.tar.xz"], kind="nvidia-h100-x1")
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-07-s57
out=build/r57/s1
export PYTHONPATH=$PWD/python
rm -rf "$out" "$out.tar.xz"
mkdir -p "$out"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/ship90" \
  --flash-opt build/bin/flash-opt > /dev/null
python3 -m flash_mlir.tools.check_bundles "$out/ship90" | tail -1   # exits 1 on a spill or stack frame
if [ -d build/r56/s3/fin90 ]; then   # the cubins run 3 of the fifty-sixth session measured
  for c in build/r56/s3/fin90/*.cubin; do cmp "$c" "$out/ship90/$(basename "$c")"; done
  echo "ship90's cubins cmp-identical to build/r56/s3/fin90's"
fi
cp -r build/r54/s1/main90 "$out/"
bash scripts/bench/pack-stage.sh "$out" "$here"
