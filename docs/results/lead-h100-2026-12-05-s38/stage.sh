#!/usr/bin/env bash
# Builds and stages run 1 (this folder's README) into build/r38, on the build machine, from a
# clean checkout of main with build/ built (bash scripts/build.sh), so that it can be repeated
# on an H200 when one is lent (this session's device was an H100):
#
#   bash docs/results/lead-h100-2026-12-05-s38/stage.sh
#   # then, with a device: run(command="bash build/r38/run1.sh", carry=["build/r38"])
#
# It compiles main's bf16 D = 128 sm_90a decode plans (base), applies experiments.diff
# (FLASH_DECODE_EXP=nocompute, qk2), compiles them, and restores the checkout and flash-opt on
# exit. Bundles are staged without their .mlir and .ptx (the device needs the cubins and
# plans); python/ keeps the bench kernels' PTX (read_pages.ptx, read_ceiling.ptx).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "stage.sh: the checkout has changes; commit or stash them first" >&2
  exit 1
fi
here=docs/results/lead-h100-2026-12-05-s38
out=build/r38
export PYTHONPATH=$PWD/python
C="python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --dtypes bf16 --head-dims 128 --causal no --lse no"
rm -rf "$out" && mkdir -p "$out/lib"
ninja -C build -j2 flash-opt flash_runtime > /dev/null
$C --out "$out/base" > /dev/null
restore() { git checkout -q -- . && ninja -C build -j2 flash-opt > /dev/null; }
trap restore EXIT
git apply "$here/experiments.diff"
ninja -C build -j2 flash-opt > /dev/null
for v in nocompute qk2; do
  FLASH_DECODE_EXP=$v $C --out "$out/$v" > /dev/null
done
cp -r python "$out/python"
cp build/lib/libflash_runtime.so "$out/lib/"
cp scripts/bench/device-run.sh "$here/run1.sh" "$out/"
find "$out" -maxdepth 2 \( -name '*.mlir' -o -name '*.ptx' \) -path "$out/*/*" -delete
find "$out" -name __pycache__ -prune -exec rm -rf {} +
du -sh "$out"
