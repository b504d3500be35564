#!/usr/bin/env bash
# Build machine: stage H2's run (twenty-second session, issue 17 item 5) as
# /work/main/build/s22-h2-run. Switches (FLASH_DECODE_EXP, variants.diff on main 2485bd3):
#   group,tfirst,pg  the twenty-first session's `cand` (docs/benchmarks.md, run 2)
#   sep     those switches only in the separate merge's split kernel (`_separate`,
#           sm_90a, calls of at most 8 work units); the fused kernel stays main's
#   ftp     the fused kernel with tfirst + pg (run 2's `tp`)
#   fshort  the fused kernel with tfirst + pg's prologue order only on parts of at most 4
#           tiles (a block-uniform branch between the two orders), main's otherwise
#   gplant  planted bug (group's second pass reads the first pass's row)
# Bundles: sep90/septp90/sepsh90/sep80 all plans (checks), cand90 bf16 D=128 (bench),
#   main90 = main 4919f12's bf16 D=128 decode bundles (/work/baseline-s22/sm90a-dec),
#   mainb90 = a second copy of main90 (the paged kernel's own noise floor).
set -eu
W=${W:-/work/wt-h3}; S=/work/main/build/s22-h2-run; T=$(mktemp -d)
R=$W/docs/results/s22-h2-h200-2026-12-03
cd $W
export PYTHONPATH=python
FO=$W/build/bin/flash-opt
c() { local name=$1 exp=$2; shift 2
      FLASH_DECODE_EXP=$exp /usr/bin/python3 -m flash_mlir.compile --out $T/$name --flash-opt $FO "$@" > $T/$name.log 2>&1; }
small="--arch sm_90a --ops split_kv,paged --dtypes bf16 --head-dims 128 --causal no --lse no --cubin-archs sm_90a"
full90="--arch sm_90a --ops split_kv,paged --dtypes bf16,f16 --head-dims 64,128,256 --cubin-archs sm_90a"
c cand90 group,tfirst,pg $small
c sep90 group,tfirst,pg,sep $full90
c septp90 group,tfirst,pg,sep,ftp $full90
c sepsh90 group,tfirst,pg,sep,fshort $full90
c sep80 group,tfirst,pg,sep --arch sm_80 --ops split_kv,paged --dtypes bf16,f16 --head-dims 64,128,256 --cubin-archs sm_90
c plant90 group,tfirst,pg,sep,gplant --arch sm_90a --ops split_kv,paged --dtypes bf16 --head-dims 64,128,256 --cubin-archs sm_90a
rm -rf $S; mkdir -p $S/b/main90 $S/b/mainb90 $S/lib $R/build
for d in cand90 sep90 septp90 sepsh90 sep80 plant90; do
  mkdir -p $S/b/$d; cp $T/$d/*.json $T/$d/*.ptx $T/$d/*.cubin $S/b/$d/
  /usr/bin/python3 -m flash_mlir.tools.check_bundles $T/$d > $R/build/check_bundles-$d.log 2>&1 || echo "SPILLS? $d"
done
for m in main90 mainb90; do
  cp /work/baseline-s22/sm90a-dec/flash_decode_{paged,split}_sm_90a_bf16_d128.{json,ptx,sm_90a.cubin} $S/b/$m/
done
cp build/lib/libflash_runtime.so $S/lib/; cp -r python $S/python; rm -rf $S/python/tests; find $S/python -name __pycache__ -prune -exec rm -rf {} +
(cd $S && tar czf bundles.tgz -C b . && rm -rf b)
cp $R/run.sh $S/run.sh
echo "$T"; du -sh $S
# H200: run(command="bash build/s22-h2-run/run.sh", carry=["build/s22-h2-run"], timeout_s=300)
