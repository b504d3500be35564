#!/usr/bin/env bash
# hE (seventeenth session): stage the D = 128 backward variants into /work/main/build/hE-run.
# FLASH_BWD_EXP (temporary compile-time switch of branch bwd-sm90-d128-2): unset = main's kernel
# (PTX cmp-identical to /work/baseline/sm90a-bwd), v4 = dQ staged with 16-byte stores,
# dq1 = v4 + one warpgroup's m64n128 dQ per step, alternating.
set -eu
WT=/work/wt-merge; FO=$WT/build/bin/flash-opt
S=/work/main/build/hE-run; T=/tmp/hE/stage
rm -rf $S $T; mkdir -p $S/lib $S/b90 $S/d90 $S/planted $S/bvar $T
cp -r $WT/python $S/python; find $S/python -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so $S/lib/; cp /tmp/hE/run.sh /tmp/hE/run2.sh $S/
export PYTHONPATH=$WT/python
C="/usr/bin/python3 -m flash_mlir.compile"
FLASH_BWD_EXP=v4 $C --out $S/b90 --arch sm_90a --ops backward --head-dims 64,128,256 --cubin-archs sm_90a --flash-opt $FO > /dev/null
FLASH_BWD_EXP=dq1 $C --out $S/d90 --arch sm_90a --ops backward --head-dims 128 --cubin-archs sm_90a --flash-opt $FO > /dev/null
$C --out $T/main --arch sm_90a --ops backward --dtypes bf16 --head-dims 128 --cubin-archs sm_90a --flash-opt $FO > /dev/null
for n in $(cd $T/main && ls flash_bwd_sm_90a_bf16_d128*.ptx | sed 's/.ptx$//'); do
  cmp $T/main/$n.ptx /work/baseline/sm90a-bwd/$n.ptx
done
for v in b90 d90; do for c in "" _causal; do for d in "" _deterministic; do
  n=flash_bwd_sm_90a_bf16_d128$c$d; mkdir -p $S/planted/$v; cp $S/$v/$n.json $S/planted/$v/
  sed -E 's/(st\.shared\.v4\.b32[^{]*\{)(%r[0-9]+), (%r[0-9]+),/\1\3, \2,/' $S/$v/$n.ptx > $S/planted/$v/$n.ptx
  cmp -s $S/$v/$n.ptx $S/planted/$v/$n.ptx && { echo "planting changed nothing in $n"; exit 1; }
  ptxas -arch=sm_90a -o $S/planted/$v/$n.sm_90a.cubin $S/planted/$v/$n.ptx
done; done; done
VAR=/work/main/docs/results/bwd-d256-perf-h200-2026-12-02/variant.py
for c in "" _causal; do
  n=flash_bwd_sm_90a_bf16_d128$c; cp $T/main/$n.{json,ptx,sm_90a.cubin} $S/bvar/
  /usr/bin/python3 $VAR $S/b90/$n.json $S/bvar v4 > /dev/null
  /usr/bin/python3 $VAR $S/d90/$n.json $S/bvar dq1 > /dev/null
done
$C --out $T/fwd --arch sm_90a --ops forward --lse yes --dtypes bf16 --head-dims 128 --cubin-archs sm_90a --flash-opt $FO > /dev/null
cp $T/fwd/flash_fwd_sm_90a_bf16_d128*.{json,ptx,sm_90a.cubin} $S/bvar/
find $S -name '*.mlir' -delete; du -sh $S; ls $S/bvar
