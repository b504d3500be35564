#!/usr/bin/env bash
# Builds and stages runs 4 and 5 (this folder's README) into build/s36run, on the build
# machine, from a clean checkout of main with build/ built (bash scripts/build.sh):
#
#   bash docs/results/lead-h200-2026-12-05-s36/stage.sh
#   # then, with a device: run(command="bash build/s36run/run4.sh", carry=["build/s36run"])
#   #                       run(command="bash build/s36run/run5.sh", carry=["build/s36run"])
#
# It compiles main's bf16 D = 128 plans (tile90), applies sepage.diff (new90: every sm_90a
# plan; sep90: its bf16 D = 128 plans; python/ with its decode_check), then exp16.diff
# (grp90full, sep16g, grp16), and restores the checkout and flash-opt on exit. Bundles are
# staged without their .mlir and .ptx (the device needs the cubins and plans).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "stage.sh: the checkout has changes; commit or stash them first" >&2
  exit 1
fi
here=docs/results/lead-h200-2026-12-05-s36
out=build/s36run
export PYTHONPATH=$PWD/python
C="python3 -m flash_mlir.compile --ops split_kv,paged"
one="--dtypes bf16 --head-dims 128 --causal no --lse no"
rm -rf "$out" && mkdir -p "$out/lib"
ninja -C build -j2 flash-opt flash_runtime > /dev/null
$C --out "$out/tile90" --arch sm_90a $one > /dev/null
restore() { git checkout -q -- . && ninja -C build -j2 flash-opt > /dev/null; }
trap restore EXIT
git apply "$here/sepage.diff"
ninja -C build -j2 flash-opt > /dev/null
$C --out "$out/new90" --arch sm_90a > /dev/null
$C --out "$out/sep90" --arch sm_90a $one > /dev/null
cp -r python "$out/python"
git apply "$here/exp16.diff"
ninja -C build -j2 flash-opt > /dev/null
FLASH_DECODE_EXP=grp16 $C --out "$out/grp90full" --arch sm_90a > /dev/null
for v in sep16g grp16; do
  FLASH_DECODE_EXP=$v $C --out "$out/$v" --arch sm_90a $one > /dev/null
done
cp build/lib/libflash_runtime.so "$out/lib/"
# The thirty-fifth session's run scripts, unchanged (only their diffs moved here).
cp scripts/bench/device-run.sh docs/results/lead-h200-2026-12-04-s35/run4.sh \
  docs/results/lead-h200-2026-12-04-s35/run5.sh "$out/"
find "$out" \( -name '*.mlir' -o -name '*.ptx' \) -delete
find "$out" -name __pycache__ -prune -exec rm -rf {} +
du -sh "$out"
