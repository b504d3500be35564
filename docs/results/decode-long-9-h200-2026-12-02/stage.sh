#!/usr/bin/env bash
# Build-machine side of run 1 (H2, nineteenth session, branch decode-long-9):
# compiles the bundles and stages them under /work/main/build/decode-long-9-run/.
# Variants come from the temporary compile-time switch (variants.diff):
#   FLASH_DECODE_EXP=nocount      no count and no merge (timing only: wrong output)
#   FLASH_DECODE_STAGES=N         the ring's stages (main: 3 on sm_90a)
#   FLASH_DECODE_TARGET=N         blocks per SM the split rule aims at (main: 2)
#   FLASH_DECODE_MAXSPLITS=N      the plan's max_splits (main: 256)
#   FLASH_DECODE_MAXNREG=N        nvvm.maxnreg (main: 255)
#   FLASH_DECODE_PF=N             contiguous: prefetch.global.L2 of the tile N
#                                 tiles past the ring's newest (main: none)
set -eu
wt=/work/wt-decode
st=/work/main/build/decode-long-9-run
rm -rf $st; mkdir -p $st/lib $st/bundles
cp -r $wt/python $st/python; find $st/python -name __pycache__ -prune -exec rm -rf {} +
cp $wt/build/lib/libflash_runtime.so $st/lib/
cp $wt/docs/results/decode-long-9-h200-2026-12-02/{run.sh,sums.py,ncu_driver.py} $st/
comp() { # name, env..., then flash-opt
  local name=$1; shift
  env "$@" PYTHONPATH=$wt/python /usr/bin/python3 -m flash_mlir.compile --out $st/bundles/$name \
    --arch sm_90a --ops split_kv,paged --dtypes bf16 --head-dims 128 --causal no --lse no \
    --cubin-archs sm_90a --flash-opt ${FOPT:-$wt/build/bin/flash-opt} > /tmp/h2-comp-$name.log 2>&1
  rm -f $st/bundles/$name/*.mlir
}
FOPT=/work/baseline-new/flash-opt-main comp base90
comp same90                                   # the switch unset: must be cmp-identical to base90
comp nocount90 FLASH_DECODE_EXP=nocount
comp st2_90 FLASH_DECODE_STAGES=2
comp t1s6_90 FLASH_DECODE_STAGES=6 FLASH_DECODE_TARGET=1
comp t4_90 FLASH_DECODE_TARGET=4 FLASH_DECODE_MAXSPLITS=512
comp t3s2_90 FLASH_DECODE_STAGES=2 FLASH_DECODE_TARGET=3 FLASH_DECODE_MAXSPLITS=512 FLASH_DECODE_MAXNREG=168
comp pf2_90 FLASH_DECODE_PF=2
comp pf4_90 FLASH_DECODE_PF=4
for f in $st/bundles/base90/*.ptx; do cmp $f $st/bundles/same90/$(basename $f) && echo "identical $(basename $f)"; done
rm -rf $st/bundles/same90
du -sh $st
