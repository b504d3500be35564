#!/usr/bin/env bash
# H4 (eighteenth session): stage the persistent sm_90a backward into /work/main/build/bwd90-short-8-run.
# FLASH_BWD_PERSISTENT=1 (compile-time switch of branch bwd90-short-8): the non-deterministic
# sm_90a backward at D = 64 and 128 as a persistent grid; unset = main's kernels.
set -eu
WT=/work/wt-short; FO=$WT/build/bin/flash-opt
S=/work/main/build/bwd90-short-8-run; T=/tmp/h4/stage
rm -rf $S $T; mkdir -p $S/lib $S/p90 $S/planted $S/bvar $T
cp -r $WT/python $S/python; find $S/python -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so $S/lib/; cp /tmp/h4/run.sh /tmp/h4/prof.py $S/
export PYTHONPATH=$WT/python
C="/usr/bin/python3 -m flash_mlir.compile"
FLASH_BWD_PERSISTENT=1 $C --out $S/p90 --arch sm_90a --ops backward --dtypes bf16 --head-dims 64,128 --cubin-archs sm_90a --flash-opt $FO > /dev/null
$C --out $T/main --arch sm_90a --ops backward --dtypes bf16 --head-dims 64,128 --cubin-archs sm_90a --flash-opt $FO > /dev/null
# main's kernels: this branch without the switch is byte-identical to main's
for f in $(cd $T/main && ls *.ptx); do cmp $T/main/$f /work/baseline/sm90a-bwd/$f; done
# the persistent deterministic plans are main's (no persistent form)
for f in $(cd $S/p90 && ls *deterministic*.ptx); do cmp $S/p90/$f /work/baseline/sm90a-bwd/$f; done
for c in "" _causal; do
  n=flash_bwd_sm_90a_bf16_d128$c; cp $S/p90/$n.json $S/planted/
  sed -E 's/(st\.shared\.v4\.b32[^{]*\{)(%r[0-9]+), (%r[0-9]+),/\1\3, \2,/' $S/p90/$n.ptx > $S/planted/$n.ptx
  cmp -s $S/p90/$n.ptx $S/planted/$n.ptx && { echo "planting changed nothing in $n"; exit 1; }
  ptxas -arch=sm_90a -o $S/planted/$n.sm_90a.cubin $S/planted/$n.ptx
done
VAR=/work/main/docs/results/bwd-d256-perf-h200-2026-12-02/variant.py
for d in 64 128; do for c in "" _causal; do
  n=flash_bwd_sm_90a_bf16_d$d$c; cp $T/main/$n.{json,ptx,sm_90a.cubin} $S/bvar/
  /usr/bin/python3 $VAR $S/p90/$n.json $S/bvar persist > /dev/null
done; done
$C --out $T/fwd --arch sm_90a --ops forward --lse yes --dtypes bf16 --head-dims 64,128 --cubin-archs sm_90a --flash-opt $FO > /dev/null
cp $T/fwd/flash_fwd_sm_90a_bf16_d*.{json,ptx,sm_90a.cubin} $S/bvar/
find $S -name '*.mlir' -delete; du -sh $S; ls $S/bvar | wc -l
PYTHONPATH=$S/python /usr/bin/python3 -m flash_mlir.tools.check_bundles $S/p90 2>&1 | tail -3
