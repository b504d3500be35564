#!/usr/bin/env bash
# Stage rotation run 2: full rotation (rot=1) vs windows 16/8/4 vs main, all D, non-causal
set -eu
WT=/work/wt-h3; S=${S:-/work/main/build/s24-rot-run2}; L=/tmp/s24rot2
FO=$WT/build/bin/flash-opt; V=/work/main/docs/results/s23-h3-h200-2026-12-03/variant.py
export PYTHONPATH=$WT/python
rm -rf "$S" "$L"; mkdir -p "$S/lib" "$L"
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +; rm -rf "$S/python/tests"
cp $WT/build/lib/libflash_runtime.so "$S/lib/"
comp() { local out=$1; shift
  /usr/bin/python3 -m flash_mlir.compile --out "$out" --arch sm_90a --cubin-archs sm_90a --flash-opt $FO "$@" > /dev/null; }
SIDE="--dtypes bf16 --head-dims 64,128,256 --deterministic no --causal no"
comp $L/main --ops forward,backward $SIDE
for w in 1 16 8 4; do FLASH_BWD_ROT=$w comp $L/r$w --ops forward,backward $SIDE; done
FLASH_BWD_ROT=8 comp $L/chk8 --ops backward --deterministic no
for f in $L/main/*.ptx; do cmp $f /work/main/build/lead-s24-run/b90/$(basename $f); done; echo "main = b90 (ptx)"
for f in $L/r1/*.ptx; do cmp $f /tmp/s24rot/rot/$(basename $f); done; echo "r1 = run 1's rot (ptx)"
mkdir -p $L/bench; cp $L/r1/* $L/bench/
for v in main r16 r8 r4; do d=$L/$v; [ $v = main ] || true
  for j in $d/flash_bwd_*.json; do /usr/bin/python3 $V $j $L/bench $v > /dev/null; done; done
for d in r16 r8 r4 chk8; do echo "$d: $(/usr/bin/python3 -m flash_mlir.tools.check_bundles $L/$d 2>&1 | tail -1)"; done
for d in bench chk8; do mkdir -p "$S/$d"; cp $L/$d/*.json $L/$d/*.cubin "$S/$d/"; done
du -sh "$S"
