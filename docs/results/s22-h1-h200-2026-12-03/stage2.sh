#!/usr/bin/env bash
# Stage H1's confirmation run into $S (= /work/main/build/s22-h1-run2): the branch head's bf16
# D = 128 backward bundles (no switches; their PTX cmp-identical to the measured `skip` ones)
# as the default, main 2485bd3's as the variant `main`, forward bundles with LSE.
set -eu
WT=/work/wt-h2; S=${S:-/work/main/build/s22-h1-run2}; L=${L:-/tmp/h1/stage2}
R=$WT/docs/results/s22-h1-h200-2026-12-03
VAR=$R/variant.py; FO=$WT/build/bin/flash-opt; BB=/work/baseline-s22/sm90a-bwd
export PYTHONPATH=$WT/python
rm -rf "$S" "$L"; mkdir -p "$S/lib" "$L/bench"
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so "$S/lib/"; cp $R/run2.sh "$S/"
comp() { /usr/bin/python3 -m flash_mlir.compile --out "$L/bench" --arch sm_90a --cubin-archs sm_90a --flash-opt $FO "$@" > /dev/null; }
comp --ops backward --dtypes bf16 --head-dims 128 --deterministic no
for f in "$L"/bench/flash_bwd_*.ptx; do cmp "$f" /tmp/h1/stage/chk-skip/$(basename $f); done
for j in $BB/flash_bwd_sm_90a_bf16_d128.json $BB/flash_bwd_sm_90a_bf16_d128_causal.json; do
  /usr/bin/python3 $VAR $j "$L/bench" main > /dev/null; done
comp --ops forward --lse yes --dtypes bf16 --head-dims 128
mkdir -p "$S/bench"; cp "$L"/bench/*.json "$L"/bench/*.cubin "$S/bench/"
du -sh "$S"; ls "$S/bench" | grep -c json
