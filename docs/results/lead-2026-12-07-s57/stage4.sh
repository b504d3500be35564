#!/usr/bin/env bash
# Stages run 4 of the fifty-seventh session: ms64 (main's flash-opt and python/ with
# DECODE_MAX_SPLITS["sm_90a"] = 64, bf16 D = 128) and ship90's bf16 D = 128 plans (stage1.sh's).
#   bash docs/results/lead-2026-12-07-s57/stage4.sh
#   run(command="tar xJf build/r57/s2.tar.xz -C build/r57 && bash build/r57/s2/run4.sh",
#       carry=["build/r57/s2.tar.xz"], kind="nvidia-h100-x1")
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-07-s57
out=build/r57/s2
rm -rf "$out" "$out.tar.xz" build/r57/ms64py
mkdir -p "$out/ship90"
cp -r python build/r57/ms64py
sed -i 's/DECODE_MAX_SPLITS = {"sm_80": 256, "sm_90a": 128}/DECODE_MAX_SPLITS = {"sm_80": 256, "sm_90a": 64}/' \
  build/r57/ms64py/flash_mlir/compiler/compile.py
grep -q '"sm_90a": 64}' build/r57/ms64py/flash_mlir/compiler/compile.py
PYTHONPATH=build/r57/ms64py python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a \
  --dtypes bf16 --head-dims 128 --out "$out/ms64" --flash-opt build/bin/flash-opt > /dev/null
PYTHONPATH=python python3 -m flash_mlir.tools.check_bundles "$out/ms64" | tail -1
cp build/r57/s1/ship90/*bf16_d128* "$out/ship90/"
bash scripts/bench/pack-stage.sh "$out" "$here"
