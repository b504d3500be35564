#!/usr/bin/env bash
# Stages the forty-third session's runs (README.md) into build/r43/stage from a checkout with
# swapped.diff applied and build/ built (bash scripts/build.sh); then, with a device:
#   tar cJf build/r43/stage.tar.xz -C build/r43 stage    # the tree + stage pass the 64 MiB carry
#   run(command="mkdir -p /tmp/r43 && tar xJf build/r43/stage.tar.xz -C /tmp/r43 &&
#                bash /tmp/r43/stage/run1.sh", carry=["build/r43/stage.tar.xz"])
# swap90, swap80: every sm_90a and sm_80 decode plan of this checkout (split_kv, paged;
#        bf16/f16; D 64/128/256; causal; LSE), the sm_80 ones assembled for sm_90 too.
# base, base80: the bf16 D = 128 non-causal plans of main 453ba68 (before the swapped
#        loop), compiled by that commit's flash-opt into BASE and BASE80:
#          python3 -m flash_mlir.compile --out build/r43/base --arch sm_90a --ops split_kv,paged \
#              --dtypes bf16 --head-dims 128 --causal no --lse no
#          (and --arch sm_80 --cubin-archs sm_90 --out build/r43/base80)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-05-s43-swap
out=build/r43/stage
BASE=${BASE:-build/r43/base}
BASE80=${BASE80:-build/r43/base80}
export PYTHONPATH=$PWD/python
ninja -C build -j2 flash-opt flash_runtime > /dev/null
rm -rf "$out" && mkdir -p "$out/lib" "$out/base" "$out/base80"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/swap90" > /dev/null
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_80 --cubin-archs sm_90 \
  --out "$out/swap80" > /dev/null
cp "$BASE"/*.json "$BASE"/*.cubin "$out/base/"
cp "$BASE80"/*.json "$BASE80"/*.cubin "$out/base80/"
cp -r python "$out/python"
cp build/lib/libflash_runtime.so "$out/lib/"
cp scripts/bench/device-run.sh "$here"/run*.sh "$out/"
find "$out" -maxdepth 2 \( -name '*.mlir' -o -name '*.ptx' \) -path "$out/*/*" -delete
find "$out" -name __pycache__ -prune -exec rm -rf {} +
du -sh "$out"
