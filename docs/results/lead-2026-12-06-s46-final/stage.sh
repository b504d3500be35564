#!/usr/bin/env bash
# Stages the forty-sixth session's run (README.md) into build/r46/s1 and packs it as
# build/r46/s1.tar.xz, from a checkout with build/ built (main f018569's code):
#   run(command="tar xJf build/r46/s1.tar.xz -C build/r46 && bash build/r46/s1/run1.sh",
#       carry=["build/r46/s1.tar.xz"])
# new90: every sm_90a decode plan of this checkout. PRE90: the bf16 D = 128 plans of main
# before the forty-fourth session's split rule (build/r44/base90); B141: main b141daa's
# (the rule, a 512-entry window: build/r44/final_90). Both from `python3 -m
# flash_mlir.compile --ops split_kv,paged --arch sm_90a` with each commit's flash-opt.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-06-s46-final
out=build/r46/s1
PRE90=${PRE90:-build/r44/base90}
B141=${B141:-build/r44/final_90}
export PYTHONPATH=$PWD/python
ninja -C build -j2 flash-opt flash_runtime > /dev/null
rm -rf "$out" && mkdir -p "$out/lib" "$out/pre90" "$out/b141"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/new90" > /dev/null
for d in pre90:$PRE90 b141:$B141; do
  cp "${d#*:}"/flash_decode_*_sm_90a_bf16_d128.json "${d#*:}"/flash_decode_*_sm_90a_bf16_d128.*.cubin \
    "$out/${d%%:*}/"
done
cp -r python "$out/python"
cp build/lib/libflash_runtime.so "$out/lib/"
cp scripts/bench/device-run.sh "$here"/run[0-9].sh "$out/"
find "$out" -maxdepth 2 \( -name '*.mlir' -o -name '*.ptx' \) -path "$out/*/*" -delete
find "$out" -name __pycache__ -prune -exec rm -rf {} +
tar cJf "$out.tar.xz" -C build/r46 "$(basename "$out")"
du -sh "$out" "$out.tar.xz"
