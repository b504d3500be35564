#!/usr/bin/env bash
# Stage the rotation experiment (FLASH_BWD_ROT) into $S
set -eu
WT=/work/wt-h3; S=${S:-/work/main/build/s24-rot-run}; L=/tmp/s24rot
FO=$WT/build/bin/flash-opt; V=/work/main/docs/results/s23-h3-h200-2026-12-03/variant.py
export PYTHONPATH=$WT/python
rm -rf "$S" "$L"; mkdir -p "$S/lib" "$L"
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +; rm -rf "$S/python/tests"
cp $WT/build/lib/libflash_runtime.so "$S/lib/"
comp() { local out=$1; shift
  /usr/bin/python3 -m flash_mlir.compile --out "$out" --arch sm_90a --cubin-archs sm_90a --flash-opt $FO "$@" > /dev/null; }
SIDE="--dtypes bf16 --head-dims 64,128,256 --deterministic no"
comp $L/main --ops forward,backward $SIDE
FLASH_BWD_ROT=1 comp $L/rot --ops forward,backward $SIDE
FLASH_BWD_ROT=1 comp $L/chk --ops backward --deterministic no
FLASH_BWD_ROT=1 FLASH_BWD_ROT_PLANT=1 comp $L/plant --ops backward --dtypes bf16 --head-dims 64,128 --deterministic no
for f in $L/main/*.ptx; do cmp $f /work/main/build/lead-s24-run/b90/$(basename $f); done; echo "main = b90 (ptx)"
mkdir -p $L/bench; cp $L/rot/* $L/bench/
for j in $L/main/flash_bwd_*.json; do /usr/bin/python3 $V $j $L/bench main > /dev/null; done
for d in rot chk plant; do echo "$d: $(/usr/bin/python3 -m flash_mlir.tools.check_bundles $L/$d 2>&1 | tail -1)"; done
for d in bench chk plant; do mkdir -p "$S/$d"; cp $L/$d/*.json $L/$d/*.cubin "$S/$d/"; done
du -sh "$S"
