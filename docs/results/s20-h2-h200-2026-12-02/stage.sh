#!/usr/bin/env bash
# Build machine: stage the H200 run of branch s20-h2 as /work/main/build/s20-h2-run.
# The branch's flash-opt with the temporary switches of variants.diff (not shipped):
#   full1  = the three-kernel form, bound 1 (FLASH_DECODE_SEPARATE_BOUND=1: as shipped)
#   full8  = bound 8 (the separate merge up to 8 work units), trigger at the split kernel's start
#   full8L = bound 8, the trigger after the split kernel's K/V loop (FLASH_DECODE_TRIGGER=late)
#   s4, s6 = bound 1 with 4 / 6 K/V stages (FLASH_DECODE_STAGES; one block an SM)
#   main   = main 67f485d's bundles (/work/baseline-s20/sm90a: two-kernel form, bound 1)
#   prev   = main f4eef72's bundles (/work/baseline-new/sm90a-dec: before the separate merge)
set -eu
W=${W:-/work/wt-h2}; S=/work/main/build/s20-h2-run; T=$(mktemp -d)
cd $W
export PYTHONPATH=python
comp() { out=$1; shift; env "$@" /usr/bin/python3 -m flash_mlir.compile --out $T/$out --arch sm_90a \
  --ops split_kv,paged --flash-opt build/bin/flash-opt $COMP_ARGS > $T/$out.log; }
COMP_ARGS="--dtypes bf16,f16 --head-dims 64,128,256"
comp full1 FLASH_DECODE_SEPARATE_BOUND=1
comp full8 FLASH_DECODE_SEPARATE_BOUND=8
comp full8L FLASH_DECODE_SEPARATE_BOUND=8 FLASH_DECODE_TRIGGER=late
COMP_ARGS="--dtypes bf16 --head-dims 128 --causal no --lse no"
comp s4 FLASH_DECODE_STAGES=4
comp s6 FLASH_DECODE_STAGES=6
rm -rf $S; mkdir -p $S/b/main $S/b/prev $S/lib
for d in full1 full8 full8L s4 s6; do mkdir -p $S/b/$d; cp $T/$d/*.{json,ptx,cubin} $S/b/$d/; done
cp /work/baseline-s20/sm90a/flash_decode_*_bf16_d128.{json,ptx,sm_90a.cubin} $S/b/main/
cp /work/baseline-new/sm90a-dec/flash_decode_*_bf16_d128.{json,ptx,sm_90a.cubin} $S/b/prev/
cp build/lib/libflash_runtime.so $S/lib/; cp -r python $S/python; rm -rf $S/python/tests
find $S/python -name __pycache__ -prune -exec rm -rf {} +
(cd $S && tar czf bundles.tgz -C b . && rm -rf b)
cp $W/docs/results/s20-h2-h200-2026-12-02/run.sh $S/run.sh
du -sh $S
# H200: run(command="bash build/s20-h2-run/run.sh", carry=["build/s20-h2-run"], timeout_s=300)
