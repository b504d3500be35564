#!/usr/bin/env bash
# Stages the forty-fourth session's run 2 (README.md) into build/r44/s2 and packs it as
# build/r44/s2.tar.xz, from a checkout of the branch with build/ built:
#   run(command="tar xJf build/r44/s2.tar.xz -C build/r44 && bash build/r44/s2/run2.sh",
#       carry=["build/r44/s2.tar.xz"])
# new90, new80: every sm_90a and sm_80 decode plan of this checkout (sm_80: sm_90 cubins).
# BASE90, BASE80: bf16 D = 64 and 128 non-causal plans compiled with main's rule, by this
# checkout built with `kSplitKVStagesPerSM = 99` (no kernel reaches it: two blocks an SM
# everywhere, as main), e.g.
#   python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --dtypes bf16 \
#       --head-dims 64,128 --causal no --lse no --out build/r44/base90
#   (and --arch sm_80 --cubin-archs sm_90 --out build/r44/base80)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-05-s44-t1
out=build/r44/s2
BASE90=${BASE90:-build/r44/base90}
BASE80=${BASE80:-build/r44/base80}
export PYTHONPATH=$PWD/python
ninja -C build -j2 flash-opt flash_runtime > /dev/null
rm -rf "$out" && mkdir -p "$out/lib" "$out/base90" "$out/base80"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/new90" > /dev/null
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_80 --cubin-archs sm_90 \
  --out "$out/new80" > /dev/null
cp "$BASE90"/*.json "$BASE90"/*.cubin "$out/base90/"
cp "$BASE80"/*.json "$BASE80"/*.cubin "$out/base80/"
cp -r python "$out/python"
cp build/lib/libflash_runtime.so "$out/lib/"
cp scripts/bench/device-run.sh "$here"/run2.sh "$out/"
find "$out" -maxdepth 2 \( -name '*.mlir' -o -name '*.ptx' \) -path "$out/*/*" -delete
find "$out" -name __pycache__ -prune -exec rm -rf {} +
tar cJf build/r44/s2.tar.xz -C build/r44 s2
du -sh "$out" build/r44/s2.tar.xz
