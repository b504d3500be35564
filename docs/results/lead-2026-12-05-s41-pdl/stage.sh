#!/usr/bin/env bash
# Stages the forty-first session's runs (README.md) into build/r41 from a checkout with
# build/ built (bash scripts/build.sh); then, with a device:
#   run(command="bash build/r41/run1.sh", carry=["build/r41"])
# pdl:   every sm_90a decode plan (split_kv, paged; bf16/f16; D 64/128/256; causal;
#        LSE) of this checkout. At the session's end (run 4): the separate merge's
#        split kernels launched with programmatic dependent launch behind the kernel
#        before them, waiting for it before their first global access; runs 1-3 were
#        staged from the intermediate forms README.md describes.
# base:  the bf16 D = 128 non-causal plans of main 5e6e37a (before the change),
#        compiled into BASE (default build/pdl/base90) by that commit's flash-opt:
#          python3 -m flash_mlir.compile --out build/pdl/base90 --arch sm_90a --ops split_kv,paged
# plant: pdl's bf16 D = 64 and 128 non-causal plans with every split kernel's
#        griddepcontrol.wait removed from the PTX (plant-nowait.py; the merge
#        kernel's kept), re-assembled by ptxas: decode_check --only chain must fail.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-05-s41-pdl
out=build/r41
BASE=${BASE:-build/pdl/base90}
export PYTHONPATH=$PWD/python
ninja -C build -j2 flash-opt flash_runtime > /dev/null
rm -rf "$out" && mkdir -p "$out/lib" "$out/base" "$out/plant"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/pdl" > /dev/null
for kind in split paged; do
  n=flash_decode_${kind}_sm_90a_bf16_d128
  cp "$BASE/$n.json" "$BASE/$n.sm_90a.cubin" "$out/base/"
  for d in 64 128; do
    n=flash_decode_${kind}_sm_90a_bf16_d$d
    cp "$out/pdl/$n.json" "$out/plant/"
    echo "$n: $(python3 "$here/plant-nowait.py" "$out/pdl/$n.ptx" "$out/plant/$n.ptx") waits removed"
    /usr/local/cuda/bin/ptxas -arch=sm_90a -o "$out/plant/$n.sm_90a.cubin" "$out/plant/$n.ptx" 2> /dev/null
  done
done
cp -r python "$out/python"
cp build/lib/libflash_runtime.so "$out/lib/"
cp scripts/bench/device-run.sh "$here"/run*.sh "$out/"
find "$out" -maxdepth 2 \( -name '*.mlir' -o -name '*.ptx' \) -path "$out/*/*" -delete
find "$out" -name __pycache__ -prune -exec rm -rf {} +
du -sh "$out"
