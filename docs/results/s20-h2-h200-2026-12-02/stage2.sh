#!/usr/bin/env bash
# Build machine: stage run 2 of branch s20-h2 as /work/main/build/s20-h2-run (run2.sh).
#   final  = the branch's flash-opt without switches (bound 8, trigger after the K/V loop);
#            byte-identical PTX and plans to run 1's full8L
#   full64L = the same kernels with bound 64 (variants.diff: FLASH_DECODE_SEPARATE_BOUND=64
#            FLASH_DECODE_TRIGGER=late; its PTX is final's, only the plans' grids differ)
#   main   = main 67f485d's bundles (/work/baseline-s20/sm90a)
set -eu
W=${W:-/work/wt-h2}; S=/work/main/build/s20-h2-run; T=$(mktemp -d)
cd $W
export PYTHONPATH=python
/usr/bin/python3 -m flash_mlir.compile --out $T/final --arch sm_90a --ops split_kv,paged \
  --dtypes bf16,f16 --head-dims 64,128,256 --flash-opt build/bin/flash-opt > $T/final.log
# full64L: compiled with the switches of variants.diff applied (build of run 1):
#   FLASH_DECODE_SEPARATE_BOUND=64 FLASH_DECODE_TRIGGER=late python3 -m flash_mlir.compile \
#     --out $T/full64L <the same options>
cp -r ${FULL64L:-/tmp/h2c/full64L} $T/full64L
rm -rf $S; mkdir -p $S/b/main $S/lib
for d in final full64L; do mkdir -p $S/b/$d; cp $T/$d/*.{json,ptx,cubin} $S/b/$d/; done
cp /work/baseline-s20/sm90a/flash_decode_*_bf16_d128.{json,ptx,sm_90a.cubin} $S/b/main/
cp build/lib/libflash_runtime.so $S/lib/; cp -r python $S/python; rm -rf $S/python/tests
find $S/python -name __pycache__ -prune -exec rm -rf {} +
(cd $S && tar czf bundles.tgz -C b . && rm -rf b)
cp $W/docs/results/s20-h2-h200-2026-12-02/run2.sh $S/run2.sh
du -sh $S
# H200: run(command="bash build/s20-h2-run/run2.sh", carry=["build/s20-h2-run"], timeout_s=95)
