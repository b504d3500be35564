#!/usr/bin/env bash
# Build-machine side of run 2: the bundles of run 1 (stage.sh) that it times,
# plus nomerge90 (FLASH_DECODE_EXP=nomerge: the counts as main, the last block
# resets them and does not merge; timing only).
set -eu
wt=/work/wt-decode
st=/work/main/build/decode-long-9-run
test -d $st/bundles/base90
cp -r $wt/python/flash_mlir $st/python/ ; find $st/python -name __pycache__ -prune -exec rm -rf {} +
cp $wt/docs/results/decode-long-9-h200-2026-12-02/{run2.sh,ncu_driver2.py} $st/
FLASH_DECODE_EXP=nomerge PYTHONPATH=$wt/python /usr/bin/python3 -m flash_mlir.compile --out $st/bundles/nomerge90 \
  --arch sm_90a --ops split_kv,paged --dtypes bf16 --head-dims 128 --causal no --lse no \
  --cubin-archs sm_90a --flash-opt $wt/build/bin/flash-opt > /tmp/h2-comp-nomerge90.log 2>&1
rm -f $st/bundles/nomerge90/*.mlir
PYTHONPATH=$wt/python /usr/bin/python3 -m flash_mlir.tools.check_bundles $st/bundles/nomerge90
du -sh $st
