#!/usr/bin/env bash
# Build machine: stage run 2 (run2.sh) as /work/main/build/s22-h2-run2 from stage.sh's
# compiled bundles (T = stage.sh's temp dir, printed by it).
set -eu
W=${W:-/work/wt-h3}; S=/work/main/build/s22-h2-run2; T=${T:?stage.sh temp dir}
R=$W/docs/results/s22-h2-h200-2026-12-03
rm -rf $S; mkdir -p $S/b/main90 $S/b/mainb90 $S/b/sep90 $S/b/cand90 $S/lib
for m in main90 mainb90; do
  cp /work/baseline-s22/sm90a-dec/flash_decode_{paged,split}_sm_90a_bf16_d128.{json,ptx,sm_90a.cubin} $S/b/$m/
done
for d in sep90 cand90; do
  cp $T/$d/flash_decode_{paged,split}_sm_90a_bf16_d128.{json,ptx,sm_90a.cubin} $S/b/$d/
done
cp $W/build/lib/libflash_runtime.so $S/lib/; cp -r $W/python $S/python; rm -rf $S/python/tests
find $S/python -name __pycache__ -prune -exec rm -rf {} +
(cd $S && tar czf bundles.tgz -C b . && rm -rf b)
cp $R/run2.sh $S/run.sh
du -sh $S
# H200: run(command="bash build/s22-h2-run2/run.sh", carry=["build/s22-h2-run2"], timeout_s=120)
