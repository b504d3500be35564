#!/usr/bin/env bash
# Build machine: stage the H200 run of H3 (twenty-first session, issue 17 item 5: the
# paged tile's copy form) as /work/main/build/s21-h2-run.
# The variants come from a temporary switch FLASH_DECODE_EXP (variants.diff):
#   full   a paged tile wholly inside the length copied without the zero-fill operand
#          and compare (cp.async ..., 16; the contiguous kernel's full-tile form), rows
#          looked up as before (8 a tile, clamped)
#   group  full + one page lookup per aligned 16 keys when S is a power of two >= 16
#          (the 2 passes of 8 rows at D = 128 share their page), no clamp
#   win    the block-table window's loads and stores only for the entries the part has
#          (1 load + 1 store a thread for a part of <= 128 pages, not 4 + 4)
#   gplant (planted bug, with group) every pass of a 16-key group reads its first pass's
#          rows (the follower rows' + i*8 dropped)
set -eu
W=${W:-/work/wt-h3}; S=/work/main/build/s21-h2-run; T=$(mktemp -d)
cd $W
export PYTHONPATH=python
FO=$W/build/bin/flash-opt
c() { local name=$1 exp=$2; shift 2
      FLASH_DECODE_EXP=$exp /usr/bin/python3 -m flash_mlir.compile --out $T/$name --flash-opt $FO "$@" > $T/$name.log 2>&1; }
small="--arch sm_90a --ops split_kv,paged --dtypes bf16 --head-dims 128 --causal no --lse no --cubin-archs sm_90a"
c full90 full $small
c group90 group $small
c win90 win $small
c gw90 group,win $small
c cand90 ${CAND:-group,win} --arch sm_90a --ops split_kv,paged --dtypes bf16,f16 --head-dims 64,128,256 --cubin-archs sm_90a
c cand80 ${CAND:-group,win} --arch sm_80 --ops split_kv,paged --dtypes bf16,f16 --head-dims 64,128,256 --cubin-archs sm_90
c plant90 ${CAND:-group,win},gplant --arch sm_90a --ops paged --dtypes bf16 --head-dims 64,128,256 --cubin-archs sm_90a
rm -rf $S; mkdir -p $S/b/main90 $S/lib
for d in full90 group90 win90 gw90 cand90 cand80 plant90; do
  mkdir -p $S/b/$d; cp $T/$d/*.json $T/$d/*.ptx $T/$d/*.cubin $S/b/$d/
  /usr/bin/python3 -m flash_mlir.tools.check_bundles $T/$d > $T/check_bundles-$d.log 2>&1 || echo "SPILLS? $d"
done
cp /work/baseline-s21/sm90a/flash_decode_{paged,split}_sm_90a_bf16_d128.{json,ptx,sm_90a.cubin} $S/b/main90/   # main 55d5f04
cp build/lib/libflash_runtime.so $S/lib/; cp -r python $S/python; rm -rf $S/python/tests; find $S/python -name __pycache__ -prune -exec rm -rf {} +
(cd $S && tar czf bundles.tgz -C b . && rm -rf b)
cp $W/docs/results/s21-h2-h200-2026-12-03/run.sh $S/run.sh
mkdir -p $W/docs/results/s21-h2-h200-2026-12-03/build; cp $T/check_bundles-*.log $W/docs/results/s21-h2-h200-2026-12-03/build/
du -sh $S
# H200: run(command="bash build/s21-h2-run/run.sh", carry=["build/s21-h2-run"], timeout_s=300)
