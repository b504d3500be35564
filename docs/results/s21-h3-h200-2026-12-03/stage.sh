#!/usr/bin/env bash
# Stage H3's (branch s21-h3, twenty-first session) H200 run into $S (= /work/main/build/s21-h3-run).
# The sm_90a backward's preprocess and dQ convert with each thread's loads of several row
# passes issued together (BackwardLaunch::loadPasses). While measuring, the branch's flash-opt
# read the pass counts from FLASH_BWD_PRE_PASSES / FLASH_BWD_CONVERT_PASSES (removed after).
#   chk-pN:  every sm_90a backward plan (bf16/f16 x D 64/128/256 x causal both x both plans)
#            with N passes' loads together in both side kernels (N = 4, 8, 16)
#   plant:   bf16 D 64/128 atomic plans of p8 with the convert's loaded rows rotated by one
#            pass within a group (FLASH_BWD_PLANT=1): the check must fail
#   bench:   bf16 D 64/128/256 atomic plans: p8 as the default, p4, p16 and main 55d5f04's
#            (/work/baseline-s21/sm90a-bwd) as variants; forward bundles with LSE
set -eu
WT=/work/wt-h4; S=${S:-/work/main/build/s21-h3-run}
R=$WT/docs/results/s21-h3-h200-2026-12-03
VAR=$R/variant.py; FO=$WT/build/bin/flash-opt; BB=/work/baseline-s21/sm90a-bwd
export PYTHONPATH=$WT/python
rm -rf "$S" /tmp/h3s; mkdir -p "$S/lib" "$S/bench" /tmp/h3s
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so "$S/lib/"; cp $R/run.sh $R/prof.py "$S/"
comp() { local out=$1; shift
  /usr/bin/python3 -m flash_mlir.compile --out "$out" --arch sm_90a --cubin-archs sm_90a --flash-opt $FO "$@" > /dev/null; }
for n in 4 8 16; do
  FLASH_BWD_PRE_PASSES=$n FLASH_BWD_CONVERT_PASSES=$n comp "$S/chk-p$n" --ops backward --deterministic both
done
FLASH_BWD_PRE_PASSES=8 FLASH_BWD_CONVERT_PASSES=8 FLASH_BWD_PLANT=1 comp "$S/plant" --ops backward --dtypes bf16 --head-dims 64,128 --deterministic no
# bench: p8 default; p4, p16, main as variants
for f in "$S"/chk-p8/flash_bwd_sm_90a_bf16_d*; do case $f in *deterministic*|*.mlir) continue;; esac; cp "$f" "$S/bench/"; done
for n in 4 16; do for j in "$S"/chk-p$n/flash_bwd_sm_90a_bf16_d*.json; do
  case $j in *deterministic*) continue;; esac; /usr/bin/python3 $VAR $j "$S/bench" p$n > /dev/null; done; done
for j in $BB/flash_bwd_sm_90a_bf16_d*.json; do
  case $j in *deterministic*) continue;; esac; /usr/bin/python3 $VAR $j "$S/bench" main > /dev/null; done
comp "$S/bench" --ops forward --lse yes --dtypes bf16 --head-dims 64,128,256
rm -f "$S"/*/*.mlir
# spills (ptxas) of every staged kernel
for d in "$S"/chk-p* "$S/bench"; do echo "$d: $(/usr/bin/python3 -m flash_mlir.tools.check_bundles "$d" 2>&1 | tail -1)"; done
du -sh "$S"; ls "$S/bench" | grep json | wc -l
