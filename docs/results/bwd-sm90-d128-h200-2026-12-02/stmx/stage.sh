#!/usr/bin/env bash
# Stage the stmatrix experiment (branch bwd-sm90-d128-stmatrix: dSᵀ written with
# 4 stmatrix .x4 per thread instead of 16 32-bit stores) for one H200 run, into $S
# (default /work/main/build/hB-stmx-run; pass carry=["build/hB-stmx-run"] and run
# `bash build/hB-stmx-run/run.sh`). Not run yet (helper hB's device cap was spent).
#   c128/    the experiment's D = 128 backward bundles, bf16 + f16, both plans (gpu_check)
#   planted/ the same, bf16, with the first two sources of every stmatrix swapped
#   bvar/    the experiment's bf16 D = 128 bundles (default) + main's (variant "main",
#            /work/baseline/sm90a-bwd = main cdb8c67) + forward bundles with LSE (bench)
set -eu
WT=/work/wt-layout; R=$WT/docs/results/bwd-sm90-d128-h200-2026-12-02
S=${S:-/work/main/build/hB-stmx-run}; FO=${FO:-$WT/build/bin/flash-opt}; BB=/work/baseline/sm90a-bwd
export PYTHONPATH=$WT/python
rm -rf "$S"; mkdir -p "$S/lib" "$S/c128" "$S/planted" "$S/bvar"
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so "$S/lib/"; cp $R/stmx/run.sh "$S/"
T=/tmp/hB-stmx-stage; rm -rf $T; mkdir -p $T
/usr/bin/python3 -m flash_mlir.compile --out $T/all --arch sm_90a --ops backward --head-dims 128 --cubin-archs sm_90a --flash-opt $FO > /dev/null
cp $T/all/*.{json,ptx,sm_90a.cubin} "$S/c128/"
for c in "" _causal; do for d in "" _deterministic; do
  n=flash_bwd_sm_90a_bf16_d128$c$d; cp $T/all/$n.json "$S/planted/"
  sed -E 's/(stmatrix[^{]*\{)(%r[0-9]+), (%r[0-9]+),/\1\3, \2,/' $T/all/$n.ptx > "$S/planted/$n.ptx"
  ptxas -arch=sm_90a -o "$S/planted/$n.sm_90a.cubin" "$S/planted/$n.ptx"
done; done
for c in "" _causal; do
  n=flash_bwd_sm_90a_bf16_d128$c; cp $T/all/$n.{json,ptx,sm_90a.cubin} "$S/bvar/"
  mkdir -p $T/main; cp $BB/$n.{json,ptx,sm_90a.cubin} $T/main/
  /usr/bin/python3 $R/../bwd-d256-perf-h200-2026-12-02/variant.py $T/main/$n.json "$S/bvar" main > /dev/null
done
F=/tmp/hB-fwd; [ -d $F ] || /usr/bin/python3 -m flash_mlir.compile --out $F --arch sm_90a --ops forward --lse yes --dtypes bf16 --head-dims 128,256 --cubin-archs sm_90a --flash-opt $FO > /dev/null
cp $F/flash_fwd_sm_90a_bf16_d128*.{json,ptx,sm_90a.cubin} "$S/bvar/"
find "$S" -name '*.mlir' -delete; du -sh "$S"; grep -c stmatrix "$S"/c128/*.ptx | head -3
