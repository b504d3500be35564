#!/usr/bin/env bash
# Build machine: stage run 2 of H3 (twenty-first session, issue 17 item 5) as
# /work/main/build/s21-h2-run. Variants (FLASH_DECODE_EXP, variants.diff), besides
# run 1's full/group/win/gplant (stage.sh):
#   tfirst the prologue's block-table loads before the window's, and the window's loads
#          without their branch (entries clamped into the part: always in bounds)
#   pg     the window's first and last page by shifts in a power-of-two branch (not a
#          select that also computes the two divisions by S)
#   magic  S not a power of two: key / S and key % S by a multiply-high with
#          floor((2^32-1)/S) and one correction (no div.u32 per key; smaller code)
# cand2 = group,tfirst,pg (bench --bundles, and every check)
set -eu
W=${W:-/work/wt-h3}; S=/work/main/build/s21-h2-run; T=$(mktemp -d)
cd $W
export PYTHONPATH=python
FO=$W/build/bin/flash-opt
CAND=${CAND:-group,tfirst,pg}
c() { local name=$1 exp=$2; shift 2
      FLASH_DECODE_EXP=$exp /usr/bin/python3 -m flash_mlir.compile --out $T/$name --flash-opt $FO "$@" > $T/$name.log 2>&1; }
small="--arch sm_90a --ops split_kv,paged --dtypes bf16 --head-dims 128 --causal no --lse no --cubin-archs sm_90a"
c gw90 group,win $small
c group90 group $small
c tp90 tfirst,pg $small
c magic90 magic $small
c magicf90 magic --arch sm_90a --ops paged --dtypes bf16,f16 --head-dims 64,128,256 --cubin-archs sm_90a
c cand90 $CAND --arch sm_90a --ops split_kv,paged --dtypes bf16,f16 --head-dims 64,128,256 --cubin-archs sm_90a
c cand80 $CAND --arch sm_80 --ops split_kv,paged --dtypes bf16,f16 --head-dims 64,128,256 --cubin-archs sm_90
c plant90 $CAND,gplant --arch sm_90a --ops split_kv,paged --dtypes bf16,f16 --head-dims 64,128,256 --cubin-archs sm_90a
rm -rf $S; mkdir -p $S/b/main90 $S/lib
mkdir -p $W/docs/results/s21-h2-h200-2026-12-03/build2
for d in gw90 group90 tp90 magic90 magicf90 cand90 cand80 plant90; do
  mkdir -p $S/b/$d; cp $T/$d/*.json $T/$d/*.ptx $T/$d/*.cubin $S/b/$d/
  /usr/bin/python3 -m flash_mlir.tools.check_bundles $T/$d > $W/docs/results/s21-h2-h200-2026-12-03/build2/check_bundles-$d.log 2>&1 || echo "SPILLS? $d"
done
cp /work/baseline-s21/sm90a/flash_decode_{paged,split}_sm_90a_bf16_d128.{json,ptx,sm_90a.cubin} $S/b/main90/   # main 55d5f04
cp build/lib/libflash_runtime.so $S/lib/; cp -r python $S/python; rm -rf $S/python/tests; find $S/python -name __pycache__ -prune -exec rm -rf {} +
(cd $S && tar czf bundles.tgz -C b . && rm -rf b)
cp $W/docs/results/s21-h2-h200-2026-12-03/run2.sh $S/run.sh
du -sh $S
# H200: run(command="bash build/s21-h2-run/run.sh", carry=["build/s21-h2-run"], timeout_s=240)
