#!/usr/bin/env bash
# Build machine: stage the H200 run of branch s22-h3 (issue 17: the split-KV
# kernel's warp-0 combine, SM80/DecodeKernel.cpp) as /work/main/build/s22-h3-run.
#   rows64  = sm_80 decode plans of `compile --decode-rows 64` (bf16, D 64 and
#             128, split_kv and paged, causal and LSE both: 16 plans), sm_90
#             cubins: row tiles of 64 (D = 64, 4 stages) and 32 (D = 128, 2
#             stages), the kernels whose warp 0 combines the warps alone
#   plant   = the same plans from a flash-opt with plant.diff applied (warp 3's
#             words left out of warp 0's combine): the check must fail
#   ship16  = the shipped sm_80 plans (16-row tiles) of the same keys: the
#             rows cases on the form the bundles ship (sanity of the cases)
# FLASH_OPT_PLANT: a flash-opt built with plant.diff (default /tmp/h3/flash-opt-planted).
set -eu
W=${W:-/work/wt-h4}; S=/work/main/build/s22-h3-run; T=${T:-/tmp/h3stage}
P=${FLASH_OPT_PLANT:-/tmp/h3/flash-opt-planted}
cd $W
export PYTHONPATH=python
rm -rf $T; mkdir -p $T
comp() { out=$1 opt=$2; shift 2; /usr/bin/python3 -m flash_mlir.compile --out $T/$out --arch sm_80 \
  --cubin-archs sm_90 --ops split_kv,paged --dtypes bf16 --head-dims 64,128 --flash-opt $opt "$@" \
  > $T/$out.log; tail -1 $T/$out.log; }
comp rows64 build/bin/flash-opt --decode-rows 64
comp plant $P --decode-rows 64
comp ship16 build/bin/flash-opt
for f in $T/rows64/*.ptx; do cmp -s $f $T/plant/$(basename $f) && echo "plant did not change $(basename $f)"; done
rm -rf $S; mkdir -p $S/b $S/lib
for d in rows64 plant ship16; do mkdir -p $S/b/$d; cp $T/$d/*.{json,ptx,cubin} $S/b/$d/; done
cp build/lib/libflash_runtime.so $S/lib/; cp -r python $S/python; rm -rf $S/python/tests
find $S/python -name __pycache__ -prune -exec rm -rf {} +
(cd $S && tar czf bundles.tgz -C b . && rm -rf b)
cp $W/docs/results/s22-h3-h200-2026-12-03/run.sh $S/run.sh
du -sh $S
# H200: run(command="bash build/s22-h3-run/run.sh", carry=["build/s22-h3-run"], timeout_s=100)
