#!/usr/bin/env bash
# Stages the forty-fourth session's run 1 (README.md) into build/r44/stage and packs it
# as build/r44/stage.tar.xz (the tree + the stage pass the device's 64 MiB carry):
#   run(command="tar xJf build/r44/stage.tar.xz -C build/r44 && bash build/r44/stage/run1.sh",
#       carry=["build/r44/stage.tar.xz"])
# T1, T1_80: the bf16 D = 128 non-causal plans compiled with the rule's constant at 1:
#   sed -i 's/kSplitKVTargetBlocksPerSM = 2;/kSplitKVTargetBlocksPerSM = 1;/' include/flash/Target/SplitKV.h
#   ninja -C build -j2 flash-opt
#   python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --dtypes bf16 \
#       --head-dims 128 --causal no --lse no --out build/r44/t1
#   (and --arch sm_80 --cubin-archs sm_90 --out build/r44/t1_80)
#   git checkout include/flash/Target/SplitKV.h && ninja -C build -j2 flash-opt
# T1S6, T1S6_80: the same with also `budget = sharedMemPerSM - 1024` in splitKVTileShape
#   (the stages of one block an SM), --out build/r44/t1s6 (and t1s6_80, not run yet).
# base, base80: the same plans from main's flash-opt (this script compiles them).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-05-s44-t1
out=build/r44/stage
T1=${T1:-build/r44/t1}
T1_80=${T1_80:-build/r44/t1_80}
T1S6=${T1S6:-build/r44/t1s6}
export PYTHONPATH=$PWD/python
ninja -C build -j2 flash-opt flash_runtime > /dev/null
rm -rf "$out" && mkdir -p "$out/lib" "$out/t1" "$out/t1_80" "$out/t1s6"
common=(--ops split_kv,paged --dtypes bf16 --head-dims 128 --causal no --lse no)
python3 -m flash_mlir.compile "${common[@]}" --arch sm_90a --out "$out/base" > /dev/null
python3 -m flash_mlir.compile "${common[@]}" --arch sm_80 --cubin-archs sm_90 \
  --out "$out/base80" > /dev/null
cp "$T1"/*.json "$T1"/*.cubin "$out/t1/"
cp "$T1_80"/*.json "$T1_80"/*.cubin "$out/t1_80/"
cp "$T1S6"/*.json "$T1S6"/*.cubin "$out/t1s6/"
cp -r python "$out/python"
cp build/lib/libflash_runtime.so "$out/lib/"
cp scripts/bench/device-run.sh "$here"/run*.sh "$out/"
find "$out" -maxdepth 2 \( -name '*.mlir' -o -name '*.ptx' \) -path "$out/*/*" -delete
find "$out" -name __pycache__ -prune -exec rm -rf {} +
tar cJf build/r44/stage.tar.xz -C build/r44 stage
du -sh "$out" build/r44/stage.tar.xz
