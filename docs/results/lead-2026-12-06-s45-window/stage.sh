#!/usr/bin/env bash
# Stages the forty-fifth session's runs (README.md) into build/r45/$STAGE (s1: runs 1 and 2,
# each from the checkout of its code; s3: run 3, the final code) and packs it as
# build/r45/$STAGE.tar.xz, from a checkout with build/ built:
#   run(command="tar xJf build/r45/s1.tar.xz -C build/r45 && bash build/r45/s1/run1.sh",
#       carry=["build/r45/s1.tar.xz"])
# new90: every sm_90a decode plan of this checkout (the block-table window of 1024 entries
# in the kernels that aim at one block an SM). BASE90: main b141daa's bf16 D = 128 plans
# (its flash-opt's `python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a`
# output; the forty-fourth session's build/r44/final_90).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-06-s45-window
out=build/r45/${STAGE:-s1}
BASE90=${BASE90:-build/r44/final_90}
export PYTHONPATH=$PWD/python
ninja -C build -j2 flash-opt flash_runtime > /dev/null
rm -rf "$out" && mkdir -p "$out/lib" "$out/base90"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/new90" > /dev/null
cp "$BASE90"/flash_decode_*_sm_90a_bf16_d128.json "$BASE90"/flash_decode_*_sm_90a_bf16_d128.*.cubin \
  "$out/base90/"
cp -r python "$out/python"
cp build/lib/libflash_runtime.so "$out/lib/"
cp scripts/bench/device-run.sh "$here"/run[0-9].sh "$out/"
find "$out" -maxdepth 2 \( -name '*.mlir' -o -name '*.ptx' \) -path "$out/*/*" -delete
find "$out" -name __pycache__ -prune -exec rm -rf {} +
tar cJf "$out.tar.xz" -C build/r45 "$(basename "$out")"
du -sh "$out" "$out.tar.xz"
