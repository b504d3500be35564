#!/usr/bin/env bash
# Stage the hB (bwd-sm90-d128) H200 run into $S: main's sm_90a backward bundles
# (D = 128, 256 bf16, from /work/baseline/sm90a-bwd, = main cdb8c67), forward
# bundles with LSE (bench's O and LSE), and timing-only variants of the D = 128
# kernel (ptxvar.py: nored, red50, nowait; re-assembled with ptxas, renamed
# with ../bwd-d256-perf-h200-2026-12-02/variant.py).
set -eu
WT=/work/wt-layout; R=$WT/docs/results/bwd-sm90-d128-h200-2026-12-02
S=${S:-/work/main/build/hB-run}; BB=/work/baseline/sm90a-bwd
rm -rf "$S"; mkdir -p "$S/bvar" "$S/lib"
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so "$S/lib/"
cp $R/run.sh $R/ncu-bwd.py "$S/"
for d in 128 256; do for c in "" _causal; do
  cp $BB/flash_bwd_sm_90a_bf16_d${d}${c}.{json,ptx,sm_90a.cubin} "$S/bvar/"
done; done
# forward bundles with LSE (bench's O and LSE; the baseline's are older than the launch plan)
F=/tmp/hB-fwd; [ -d $F ] || PYTHONPATH=$WT/python /usr/bin/python3 -m flash_mlir.compile --out $F --arch sm_90a --ops forward --lse yes --dtypes bf16 --head-dims 128,256 --cubin-archs sm_90a --flash-opt ${FO:-/work/main/build/bin/flash-opt} > /dev/null
cp $F/*.{json,ptx,sm_90a.cubin} "$S/bvar/"
T=/tmp/hB-var; rm -rf $T; mkdir -p $T
for c in "" _causal; do for v in nored red50 nowait; do
  n=flash_bwd_sm_90a_bf16_d128$c; rm -rf $T/b; mkdir -p $T/b; cp $BB/$n.json $T/b/
  /usr/bin/python3 $R/ptxvar.py $BB/$n.ptx $T/b/$n.ptx $v
  ptxas -arch=sm_90a -o $T/b/$n.sm_90a.cubin $T/b/$n.ptx
  /usr/bin/python3 $WT/docs/results/bwd-d256-perf-h200-2026-12-02/variant.py $T/b/$n.json "$S/bvar" $v > /dev/null
done; done
du -sh "$S"; ls "$S/bvar" | wc -l
