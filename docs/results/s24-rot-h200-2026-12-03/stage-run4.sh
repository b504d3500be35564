#!/usr/bin/env bash
# Stage the final rotation run (kBackwardRotateMaxQTiles = 64, shipped form) into $S
set -eu
WT=/work/wt-h3; S=${S:-/work/main/build/s24-rot-run4}; L=/tmp/s24rot4
FO=$WT/build/bin/flash-opt; FM=/work/main/build/bin/flash-opt; FP=/work/s24/flash-opt-plant
V=/work/main/docs/results/s23-h3-h200-2026-12-03/variant.py
export PYTHONPATH=$WT/python
rm -rf "$S" "$L"; mkdir -p "$S/lib" "$L"
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +; rm -rf "$S/python/tests"
cp $WT/build/lib/libflash_runtime.so "$S/lib/"
comp() { local fo=$1 out=$2; shift 2
  /usr/bin/python3 -m flash_mlir.compile --out "$out" --arch sm_90a --cubin-archs sm_90a --flash-opt $fo "$@" > /dev/null; }
SIDE="--dtypes bf16 --head-dims 64,128,256 --deterministic no --causal no"
comp $FM $L/main --ops forward,backward $SIDE
comp $FO $L/cand --ops forward,backward $SIDE
comp $FO $L/chk --ops backward --deterministic both
comp $FM $L/chkmain --ops backward --deterministic both
echo "PTX, candidate against main (all 24 sm_90a backward plans):"
for f in $L/chkmain/*.ptx; do cmp -s $f $L/chk/$(basename $f) && echo "  same $(basename $f)" || echo "  DIFF $(basename $f)"; done
mkdir -p $L/bench; cp $L/cand/* $L/bench/
for j in $L/main/flash_bwd_*.json; do /usr/bin/python3 $V $j $L/bench main > /dev/null; done
for d in cand chk; do echo "$d: $(/usr/bin/python3 -m flash_mlir.tools.check_bundles $L/$d 2>&1 | tail -1)"; done
for d in bench chk; do mkdir -p "$S/$d"; cp $L/$d/*.json $L/$d/*.cubin "$S/$d/"; done
du -sh "$S"
