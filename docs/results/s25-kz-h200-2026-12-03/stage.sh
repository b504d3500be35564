#!/usr/bin/env bash
# Stage the kept-zero accumulator run (s25) into $S
set -eu
WT=/work/wt-h3; S=${S:-/work/main/build/s25-kz-run}; L=/tmp/s25kz
FO=/work/plans/flash-opt-s25; V=/work/main/docs/results/s23-h3-h200-2026-12-03/variant.py
export PYTHONPATH=$WT/python
rm -rf "$S" "$L"; mkdir -p "$S/lib" "$L"
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +; rm -rf "$S/python/tests"
cp $WT/build/lib/libflash_runtime.so "$S/lib/"
comp() { local fo=$1 out=$2; shift 2
  /usr/bin/python3 -m flash_mlir.compile --out "$out" --arch sm_90a --cubin-archs sm_90a --flash-opt $fo "$@" > /dev/null; }
comp $FO $L/cand --ops forward,backward --dtypes bf16 --head-dims 64,128,256 --deterministic no
comp $FO $L/chk --ops backward --deterministic both
comp /work/s24/flash-opt-plantA $L/plantA --ops backward --dtypes bf16 --head-dims 64,128 --deterministic no --causal no
comp /work/s24/flash-opt-plantB $L/plantB --ops backward --dtypes bf16 --head-dims 64,128 --deterministic no --causal no
M=/work/main/build/lead-s25-run1/b90
echo "candidate PTX against main's (bf16, 30 files):"
for f in $M/*.ptx; do cmp -s $f $L/cand/$(basename $f) && echo "  same $(basename $f)" || echo "  DIFF $(basename $f)"; done
mkdir -p $L/bench; cp $L/cand/* $L/bench/
for j in $M/flash_bwd_*.json; do /usr/bin/python3 $V $j $L/bench main > /dev/null; done
for d in cand chk plantA plantB; do echo "$d: $(/usr/bin/python3 -m flash_mlir.tools.check_bundles $L/$d 2>&1 | tail -1)"; done
for d in bench chk plantA plantB; do mkdir -p "$S/$d"; cp $L/$d/*.json $L/$d/*.cubin "$S/$d/"; done
du -sh "$S"
