#!/usr/bin/env bash
# Stage run 1 into $S: main ffd6bf8's bf16 D 64/128 non-causal forward (LSE) + backward bundles.
set -eu
WT=/work/wt-h3; S=${S:-/work/main/build/s23-h3-run}; L=/tmp/h3/stage1
R=$WT/docs/results/s23-h3-h200-2026-12-03
rm -rf "$S" "$L"; mkdir -p "$S/lib" "$L"
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so "$S/lib/"; cp $R/run1.sh $R/kprof.py "$S/"
PYTHONPATH=$WT/python /usr/bin/python3 -m flash_mlir.compile --out $L/b0 --arch sm_90a --cubin-archs sm_90a \
  --flash-opt $WT/build/bin/flash-opt --ops forward,backward --lse yes --dtypes bf16 --head-dims 64,128 --causal no --deterministic no > /dev/null
for f in $L/b0/flash_bwd_*.ptx; do cmp $f /work/baseline-s23/sm90a-bwd/$(basename $f); done
mkdir -p $S/b0; cp $L/b0/*.json $L/b0/*.cubin $S/b0/
du -sh $S
