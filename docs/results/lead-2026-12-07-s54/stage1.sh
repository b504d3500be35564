#!/usr/bin/env bash
# Stages run 1 of the fifty-fourth session (README.md): new90, every sm_90a decode plan of
# branch s54-ef-gate (the split kernels' K/V copies under an L2 policy chosen per call:
# evict-first where B · M·S (or Nk) · Hkv · 2D elements exceed the 50 MiB L2, else
# evict-normal), compiled with that branch's flash-opt (build/bin/flash-opt); main90 and
# ef90 are the fifty-third session's run 5 plans (main 73e7533's, and those with hint.py's
# ungated evict-first edit), taken from its staging folder build/r53/s5.
#   bash docs/results/lead-2026-12-07-s54/stage1.sh
#   run(command="tar xJf build/r54/s1.tar.xz -C build/r54 && bash build/r54/s1/run1.sh",
#       carry=["build/r54/s1.tar.xz"], kind="nvidia-h100-x1")
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-07-s54
out=build/r54/s1
export PYTHONPATH=$PWD/python
rm -rf "$out" "$out.tar.xz"
mkdir -p "$out"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/new90" \
  --flash-opt build/bin/flash-opt > /dev/null
python3 -m flash_mlir.tools.check_bundles "$out/new90" | tail -1   # exits 1 on a spill or stack frame
cp -r build/r53/s5/main90 build/r53/s5/ef90 "$out/"
bash scripts/bench/pack-stage.sh "$out" "$here"
