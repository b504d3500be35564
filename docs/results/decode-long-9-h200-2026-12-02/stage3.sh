#!/usr/bin/env bash
# Build-machine side of run 3 (staged for the lead, not run by H2): the
# candidate (branch decode-long-9, commit b6dc6e3 (its code is 0dc1010's; the amend added docs/gpu.md)) and a planted bug.
# Run from the worktree at b6dc6e3 (build/bin/flash-opt built from it).
set -eu
wt=/work/wt-decode
st=/work/main/build/decode-long-9-run3
mkdir -p $st/bundles $st/lib
# plant90 was compiled first, from the candidate + planted.diff (each part's LSE
# address stepped one row too far), by:
#   PYTHONPATH=python python3 -m flash_mlir.compile --out $st/bundles/plant90 \
#     --arch sm_90a --ops split_kv,paged --cubin-archs sm_90a
test -d $st/bundles/plant90
rm -rf $st/python $st/bundles/{main90,cand90,cand80}
cp -r $wt/python $st/python; find $st/python -name __pycache__ -prune -exec rm -rf {} +
cp $wt/build/lib/libflash_runtime.so $st/lib/
cp $wt/docs/results/decode-long-9-h200-2026-12-02/run3.sh $st/
mkdir -p $st/bundles/main90
for k in split paged; do
  cp /work/baseline-new/sm90a-dec/flash_decode_${k}_sm_90a_bf16_d128.{json,ptx,sm_90a.cubin} $st/bundles/main90/
done
cd $wt
PYTHONPATH=python /usr/bin/python3 -m flash_mlir.compile --out $st/bundles/cand90 --arch sm_90a \
  --ops split_kv,paged --cubin-archs sm_90a > /tmp/h2-cand90.log 2>&1
PYTHONPATH=python /usr/bin/python3 -m flash_mlir.compile --out $st/bundles/cand80 --arch sm_80 \
  --ops split_kv,paged --cubin-archs sm_90 > /tmp/h2-cand80.log 2>&1
rm -f $st/bundles/*/*.mlir $st/bundles/{cand90,cand80,plant90}/*.ptx   # cubins only (the runtime reads a PTX file only without a cubin)
for d in cand90 cand80 plant90; do
  PYTHONPATH=python /usr/bin/python3 -m flash_mlir.tools.check_bundles $st/bundles/$d | tail -1
done
du -sh $st
