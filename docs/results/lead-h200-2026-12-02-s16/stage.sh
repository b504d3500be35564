#!/usr/bin/env bash
# Lead's merged-main run (sixteenth session): main 4c4d84d + hB's stmatrix experiment (worktree
# /work/wt-layout, branch lead-stmx-merged). Stage into /work/main/build/lead-run.
set -eu
WT=/work/wt-layout; FO=$WT/build/bin/flash-opt; FM=/work/main/build/bin/flash-opt
S=/work/main/build/lead-run; T=/tmp/lead/stage
rm -rf $S $T; mkdir -p $S/lib $S/b90 $S/m128 $S/planted $S/b80 $S/bvar $T
cp -r $WT/python $S/python; find $S/python -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so $S/lib/; cp /tmp/lead/run.sh $S/
export PYTHONPATH=$WT/python
C="/usr/bin/python3 -m flash_mlir.compile"
$C --out $S/b90 --arch sm_90a --ops backward --head-dims 64,128,256 --cubin-archs sm_90a --flash-opt $FO > /dev/null
$C --out $S/m128 --arch sm_90a --ops backward --head-dims 128 --cubin-archs sm_90a --flash-opt $FM > /dev/null
$C --out $S/b80 --arch sm_80 --ops backward --head-dims 64,128,256 --cubin-archs sm_90 --flash-opt $FO > /dev/null
for c in "" _causal; do for d in "" _deterministic; do
  n=flash_bwd_sm_90a_bf16_d128$c$d; cp $S/b90/$n.json $S/planted/
  sed -E 's/(stmatrix[^{]*\{)(%r[0-9]+), (%r[0-9]+),/\1\3, \2,/' $S/b90/$n.ptx > $S/planted/$n.ptx
  cmp -s $S/b90/$n.ptx $S/planted/$n.ptx && { echo "planting changed nothing in $n"; exit 1; }
  ptxas -arch=sm_90a -o $S/planted/$n.sm_90a.cubin $S/planted/$n.ptx
done; done
for c in "" _causal; do
  n=flash_bwd_sm_90a_bf16_d128$c; cp $S/b90/$n.{json,ptx,sm_90a.cubin} $S/bvar/
  mkdir -p $T/main; cp $S/m128/$n.{json,ptx,sm_90a.cubin} $T/main/
  /usr/bin/python3 /work/main/docs/results/bwd-d256-perf-h200-2026-12-02/variant.py $T/main/$n.json $S/bvar main > /dev/null
done
$C --out $T/fwd --arch sm_90a --ops forward --lse yes --dtypes bf16 --head-dims 128 --cubin-archs sm_90a --flash-opt $FO > /dev/null
cp $T/fwd/flash_fwd_sm_90a_bf16_d128*.{json,ptx,sm_90a.cubin} $S/bvar/
find $S -name '*.mlir' -delete; du -sh $S; ls $S/bvar | head -30
