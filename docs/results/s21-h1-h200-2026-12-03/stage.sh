#!/usr/bin/env bash
# Build machine: stage the H200 run of branch s21-h1 as /work/main/build/s21-h1-run.
# The branch's flash-opt with the temporary switches of variants.diff (not shipped):
#   pc     = FLASH_DECODE_EXP=pcombine: the split kernels' four warps each combine a
#            quarter of the columns and write them (main: warp 0 combines and writes all)
#   mb8    = FLASH_DECODE_MERGE_BATCH=8: the separate merge kernel loads 8 parts a thread
#            together (main: 4), parts past the last not read (a branch)
#   mb16   = the same with 16
#   pcmb8  = pc + mb8
#   l2     = main's PTX with cp.async.cg...L2::256B (every K/V copy; ptxas re-run)
#   l2b128 = main's PTX with cp.async.cg...L2::128B
#   t1s6   = FLASH_DECODE_TARGET=1 FLASH_DECODE_STAGES=6 (one block an SM, 6 stages; timing only)
#   pcplant = pc with warp 3 writing warp 2's columns (planted bug)
#   mbplant = mb8 with the last part of a batch's branch not read (planted bug)
#   pcmb8_80 = pcmb8's switches, sm_80 plans with sm_90 cubins (decode_check --quick)
#   main   = main 55d5f04's bundles (/work/baseline-s21/sm90a)
set -eu
W=${W:-/work/wt-h2}; S=/work/main/build/s21-h1-run; T=${T:-/tmp/h1stage}
cd $W
export PYTHONPATH=python
if [ -z "${SKIP_COMPILE:-}" ]; then rm -rf $T; fi; mkdir -p $T
comp() { out=$1; shift; env "$@" /usr/bin/python3 -m flash_mlir.compile --out $T/$out --arch sm_90a \
  --ops split_kv,paged --flash-opt build/bin/flash-opt $COMP_ARGS > $T/$out.log; }
if [ -z "${SKIP_COMPILE:-}" ]; then
COMP_ARGS="--dtypes bf16,f16 --head-dims 64,128,256"
comp pc FLASH_DECODE_EXP=pcombine
comp mb8 FLASH_DECODE_MERGE_BATCH=8
comp mb16 FLASH_DECODE_MERGE_BATCH=16
comp pcmb8 FLASH_DECODE_EXP=pcombine FLASH_DECODE_MERGE_BATCH=8
comp pcplant FLASH_DECODE_EXP=pcombine,pcplant
comp mbplant FLASH_DECODE_EXP=mbplant FLASH_DECODE_MERGE_BATCH=8
COMP_ARGS="--dtypes bf16 --head-dims 128 --causal no --lse no"
comp t1s6 FLASH_DECODE_TARGET=1 FLASH_DECODE_STAGES=6
comp def
FLASH_DECODE_EXP=pcombine FLASH_DECODE_MERGE_BATCH=8 /usr/bin/python3 -m flash_mlir.compile \
  --out $T/pcmb8_80 --arch sm_80 --cubin-archs sm_90 --ops split_kv,paged \
  --flash-opt build/bin/flash-opt --dtypes bf16,f16 --head-dims 64,128,256 > $T/pcmb8_80.log
fi
for hd in 256B:l2 128B:l2b128; do
  h=${hd%%:*}; d=$T/${hd##*:}; rm -rf $d; cp -r $T/def $d
  (cd $d && for f in *.ptx; do
     sed -i "s/cp\.async\.cg\.shared\.global \[/cp.async.cg.shared.global.L2::$h [/" $f
     ptxas -arch=sm_90a -o $(basename $f .ptx).sm_90a.cubin $f; done)
done
rm -rf $S; mkdir -p $S/b/main $S/lib
for d in pc mb8 mb16 pcmb8 pcplant mbplant t1s6 l2 l2b128 pcmb8_80; do
  mkdir -p $S/b/$d; cp $T/$d/*.{json,ptx,cubin} $S/b/$d/; done
# main = this flash-opt without switches (cmp'd against main 55d5f04's bundles where present)
cp $T/def/*.{json,ptx,cubin} $S/b/main/
for f in $T/def/*.ptx; do g=/work/baseline-s21/sm90a/$(basename $f)
  [ -f $g ] && { cmp $f $g && echo "main = baseline: $(basename $f)"; } || true; done
cp build/lib/libflash_runtime.so $S/lib/; cp -r python $S/python; rm -rf $S/python/tests
find $S/python -name __pycache__ -prune -exec rm -rf {} +
(cd $S && tar czf bundles.tgz -C b . && rm -rf b)
cp $W/docs/results/s21-h1-h200-2026-12-03/run.sh $S/run.sh
du -sh $S
# H200: run(command="bash build/s21-h1-run/run.sh", carry=["build/s21-h1-run"], timeout_s=300)
