#!/usr/bin/env bash
# Stages run 2 of the fifty-sixth session (README.md): new90 (branch s54-ef-gate's sm_90a
# decode plans, as in the fifty-fourth session's run 1) and three edits of its PTX by
# policy-edit.py -- nh (no policy), eu (evict_unchanged under the gate's bound), el
# (evict_last under it) -- assembled as flash-opt does (`ptxas -arch=sm_90a -v`, no
# spills), with main90 from build/r54/s1.
#   git checkout s54-ef-gate && bash scripts/build.sh     # build/bin/flash-opt: new90's
#   bash docs/results/lead-2026-12-07-s56/stage2.sh
#   run(command="tar xJf build/r56/s2.tar.xz -C build/r56 && bash build/r56/s2/run2.sh",
#       carry=["build/r56/s2.tar.xz"], kind="nvidia-h100-x1")
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-07-s56
out=build/r56/s2
export PYTHONPATH=$PWD/python
rm -rf "$out" "$out.tar.xz" build/r56/ptx
mkdir -p "$out"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out build/r56/ptx \
  --flash-opt build/bin/flash-opt > /dev/null
for c in build/r54/s1/new90/*.cubin; do cmp "$c" "build/r56/ptx/$(basename "$c")"; done
cp -r build/r56/ptx "$out/new90"
cp -r build/r54/s1/main90 "$out/"
for v in nh eu el; do
  mkdir -p "$out/${v}90"
  for p in build/r56/ptx/*.ptx; do
    f=$(basename "$p" .ptx)
    cp "build/r56/ptx/$f.json" "$out/${v}90/"
    python3 "$here/policy-edit.py" "$p" "$out/${v}90/$f.ptx" "$v" > /dev/null
    ptxas -arch=sm_90a -v -o "$out/${v}90/$f.sm_90a.cubin" "$out/${v}90/$f.ptx" > "$out/${v}90/$f.ptxas" 2>&1
    if grep -q "[1-9][0-9]* bytes spill" "$out/${v}90/$f.ptxas"; then echo "$v $f spills" >&2; exit 1; fi
    rm "$out/${v}90/$f.ptxas"
  done
done
bash scripts/bench/pack-stage.sh "$out" "$here"
