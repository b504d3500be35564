#!/usr/bin/env bash
# Build machine: stage run 2 (the shipped build: mlen alone, no switch) as
# /work/main/build/s20-h3-run2. ship90 = sm_90a decode bundles of the branch head;
# plantwait90 = the same with the planted bug of planted-nowait.diff (the paged
# merge kernel without griddepcontrol.wait: it reads the partials while the split
# grid may still write them).
set -eu
W=${W:-/work/wt-h3}; S=/work/main/build/s20-h3-run2; T=$(mktemp -d)
cd $W; export PYTHONPATH=python
/usr/bin/python3 -m flash_mlir.compile --out $T/ship90 --arch sm_90a --ops split_kv,paged \
  --dtypes bf16,f16 --head-dims 64,128,256 --cubin-archs sm_90a --flash-opt build/bin/flash-opt
# plantwait90: the same command with planted-nowait.diff applied (then reverted)
rm -rf $S; mkdir -p $S/b/ship90 $S/b/plantwait90 $S/lib
cp $T/ship90/*.{json,ptx,cubin} $S/b/ship90/
cp ${PLANT:-/tmp/h3/ship/plantwait90}/*.{json,ptx,cubin} $S/b/plantwait90/
cp build/lib/libflash_runtime.so $S/lib/; cp -r python $S/python; rm -rf $S/python/tests
(cd $S && tar czf bundles.tgz -C b . && rm -rf b)
cp $W/docs/results/s20-h3-h200-2026-12-02/run2.sh $S/run.sh
du -sh $S
# H200: run(command="bash build/s20-h3-run2/run.sh", carry=["build/s20-h3-run2"], timeout_s=150)
