#!/usr/bin/env bash
# Stage H3's second H200 run into $S (= /work/main/build/s21-h3-run2): the branch head's
# shipped sm_90a backward bundles (loadPasses 16; PTX byte-identical to run 1's chk-p16) for
# compute-sanitizer memcheck/racecheck, and a confirmation bench of the head against main
# 55d5f04 (variant `main`) on the short rows.
set -eu
WT=/work/wt-h4; S=${S:-/work/main/build/s21-h3-run2}
R=$WT/docs/results/s21-h3-h200-2026-12-03
VAR=$R/variant.py; FO=$WT/build/bin/flash-opt; BB=/work/baseline-s21/sm90a-bwd
export PYTHONPATH=$WT/python
rm -rf "$S"; mkdir -p "$S/lib" "$S/bench"
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so "$S/lib/"; cp $R/run2.sh "$S/"
comp() { local out=$1; shift
  /usr/bin/python3 -m flash_mlir.compile --out "$out" --arch sm_90a --cubin-archs sm_90a --flash-opt $FO "$@" > /dev/null; }
comp "$S/chk" --ops backward --dtypes bf16,f16 --deterministic both
for f in "$S"/chk/flash_bwd_sm_90a_bf16_d*; do case $f in *deterministic*|*.mlir) continue;; esac; cp "$f" "$S/bench/"; done
for j in $BB/flash_bwd_sm_90a_bf16_d*.json; do
  case $j in *deterministic*) continue;; esac; /usr/bin/python3 $VAR $j "$S/bench" main > /dev/null; done
comp "$S/bench" --ops forward --lse yes --dtypes bf16 --head-dims 64,128,256
rm -f "$S"/*/*.mlir
for f in "$S"/chk/*.ptx; do cmp -s $f /work/main/build/s21-h3-run/chk-p16/$(basename $f) || echo "DIFF from chk-p16: $f"; done
echo "chk: $(/usr/bin/python3 -m flash_mlir.tools.check_bundles "$S/chk" 2>&1 | tail -1)"
du -sh "$S"
