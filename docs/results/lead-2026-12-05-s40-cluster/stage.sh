#!/usr/bin/env bash
# Stages run 1 of this folder (README.md) into build/r40 from a checkout of main with
# build/ built (bash scripts/build.sh); then, with a device:
#   run(command="bash build/r40/run1.sh", carry=["build/r40"])
# base: main's bf16 D = 128 sm_90a split_kv and paged plans (non-causal, no LSE);
# clC (C = 2, 4, 8): the same PTX with its split kernels required to launch in
# clusters of C blocks along grid y (the kv-heads of one part of one sequence),
# re-assembled by ptxas as flash-opt does (-arch=sm_90a -v). Timing only: the plans
# are unchanged, so clC launches fail where grid y (Hkv · row tiles) is not a
# multiple of C; run1.sh times GQA 32/8 only (y = 8). python/ keeps the bench kernels'
# PTX (read_pages.ptx, read_ceiling.ptx); run 1 was staged without them (no kernel read
# ceiling in its logs; the torch one is there).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-05-s40-cluster
out=build/r40
export PYTHONPATH=$PWD/python
ninja -C build -j2 flash-opt flash_runtime > /dev/null
rm -rf "$out" && mkdir -p "$out/lib"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --dtypes bf16 --head-dims 128 \
  --causal no --lse no --out "$out/base" > /dev/null
for c in 2 4 8; do
  mkdir -p "$out/cl$c"
  for kind in split paged; do
    n=flash_decode_${kind}_sm_90a_bf16_d128
    cp "$out/base/$n.json" "$out/cl$c/"
    python3 "$here/add-cluster.py" "$c" "$out/base/$n.ptx" "$out/cl$c/$n.ptx" > /dev/null
    /usr/local/cuda/bin/ptxas -arch=sm_90a -v -o "$out/cl$c/$n.sm_90a.cubin" "$out/cl$c/$n.ptx" 2> /dev/null
  done
done
cp -r python "$out/python"
cp build/lib/libflash_runtime.so "$out/lib/"
cp scripts/bench/device-run.sh "$here/run1.sh" "$out/"
find "$out" -maxdepth 2 \( -name '*.mlir' -o -name '*.ptx' \) -path "$out/*/*" -delete
find "$out" -name __pycache__ -prune -exec rm -rf {} +
du -sh "$out"
