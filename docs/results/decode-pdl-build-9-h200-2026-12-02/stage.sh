#!/usr/bin/env bash
# Build machine: stage run 1 (branch decode-pdl-build-9 at 4f8d28b; the branch head's
# kernels are the same code) as /work/main/build/decode-pdl-build-9-run (7.6 MB).
set -eu
W=${W:-/work/wt-pdlb}; S=/work/main/build/decode-pdl-build-9-run; T=$(mktemp -d)
cd $W
export PYTHONPATH=python
/usr/bin/python3 -m flash_mlir.compile --out $T/ours90 --arch sm_90a --ops split_kv,paged \
  --dtypes bf16,f16 --head-dims 64,128,256 --flash-opt build/bin/flash-opt
/usr/bin/python3 -m flash_mlir.compile --out $T/ours80 --arch sm_80 --cubin-archs sm_90 \
  --ops split_kv,paged --dtypes bf16,f16 --head-dims 64,128,256 --flash-opt build/bin/flash-opt
rm -rf $S; mkdir -p $S/b/ours90 $S/b/ours80 $S/b/main90 $S/lib
cp $T/ours90/*.{json,ptx,cubin} $S/b/ours90/; cp $T/ours80/*.{json,ptx,cubin} $S/b/ours80/
cp /work/baseline-new/sm90a-dec/*_bf16_d128*.{json,ptx,cubin} $S/b/main90/   # main f4eef72
cp build/lib/libflash_runtime.so $S/lib/; cp -r python $S/python; rm -rf $S/python/tests
(cd $S && tar czf bundles.tgz -C b . && rm -rf b)
cp $W/docs/results/decode-pdl-build-9-h200-2026-12-02/run.sh $S/run.sh
# H200: run(command="BENCH_LIMIT=60 CHECK_LIMIT=75 bash build/decode-pdl-build-9-run/run.sh",
#           carry=["build/decode-pdl-build-9-run"], timeout_s=150)
