#!/usr/bin/env bash
# Stage H3's (branch sm80-bwd-strides-9) H200 run into $S (= /work/main/build/sm80-bwd-strides-9-run).
#   b80s: sm_80 backward bf16 D 64/128/256 + f16 D 64/128 (both plans, causal both) and forward
#         with LSE (bf16 D 64/128/256, f16 D 64/128; one range), each with its strided twins
#         (--strides variant), sm_90 cubins (what the H200 runs)
#   b80p: b80s's shipped plans only (no twins): bf16 backward D 64/128/256 (both plans) and
#         forward LSE (run 1 had the atomic backward plans only; run 2 added the
#         deterministic ones by hand, as this script now copies them)
#   planted: b80s's bf16 D = 64 and 128 backward twins (both plans) with q's row stride read
#         from k's parameter in the main kernel (GQA: they differ), re-assembled with ptxas
#   b256: bf16 D = 256 causal two-stage plan (smem227k): this branch's (0 spills) as the
#         default, main's (f4eef72's flash-opt, 4 bytes spilled on sm_90) as variant `main`,
#         forward D = 256 LSE for O
set -eu
WT=/work/wt-sm80; S=${S:-/work/main/build/sm80-bwd-strides-9-run}
R=$WT/docs/results/sm80-bwd-strides-9-h200-2026-12-02
VAR=$WT/docs/results/bwd-d256-perf-h200-2026-12-02/variant.py
FO=$WT/build/bin/flash-opt; FM=/work/baseline-new/flash-opt-main
T=/tmp/h3s; export PYTHONPATH=$WT/python
rm -rf "$S" $T; mkdir -p "$S/lib" "$S/b80s" "$S/b80p" "$S/planted" "$S/b256" $T
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so "$S/lib/"; cp $R/run.sh $R/strided-bwd-check.py $R/bench-strided.py "$S/"
comp() { /usr/bin/python3 -m flash_mlir.compile --arch sm_80 --cubin-archs sm_90 --flash-opt "$@" > /dev/null; }
comp $FO --out "$S/b80s" --ops backward --dtypes bf16 --head-dims 64,128,256 --strides variant
comp $FO --out "$S/b80s" --ops backward --dtypes f16 --head-dims 64,128 --strides variant
comp $FO --out "$S/b80s" --ops forward --lse yes --dtypes bf16 --head-dims 64,128,256 --seq-lens 4096 --strides variant
comp $FO --out "$S/b80s" --ops forward --lse yes --dtypes f16 --head-dims 64,128 --seq-lens 4096 --strides variant
rm -f "$S"/b80s/*.mlir
for j in "$S"/b80s/flash_bwd_sm_80_bf16_*.json "$S"/b80s/flash_fwd_sm_80_bf16_*.json; do
  case $j in *_strided*) continue;; esac
  n=$(basename $j .json); cp "$S"/b80s/$n.{json,ptx,sm_90.cubin} "$S/b80p/"
done
# planted: b80s's bf16 D 64/128 backward plans, three twins with q_stride2 (main: param 15 + 2 = 17;
# the deterministic dQ kernel: 13 + 2 = 15) read from k_stride2 (+3)
cp "$S"/b80s/flash_bwd_sm_80_bf16_d{64,128}*.{json,ptx,sm_90.cubin} "$S/planted/"
for n in flash_bwd_sm_80_bf16_d64_strided flash_bwd_sm_80_bf16_d128_causal_strided; do
  k=$(grep -c "${n}_param_17\]" "$S/planted/$n.ptx")
  sed -i "s/${n}_param_17\]/${n}_param_20]/" "$S/planted/$n.ptx"
  echo "planted $n: $k loads of q_stride2 now read k_stride2"
  ptxas -arch=sm_90 -o "$S/planted/$n.sm_90.cubin" "$S/planted/$n.ptx"
done
for n in flash_bwd_sm_80_bf16_d64_deterministic_strided; do
  k=$(grep -c "${n}_dq_param_15\]" "$S/planted/$n.ptx")
  sed -i "s/${n}_dq_param_15\]/${n}_dq_param_18]/" "$S/planted/$n.ptx"
  echo "planted $n: $k loads of the dQ kernel's q_stride2 now read k_stride2"
  ptxas -arch=sm_90 -o "$S/planted/$n.sm_90.cubin" "$S/planted/$n.ptx"
done
# b256: this branch's and main's two-stage causal D = 256 plans
comp $FO --out $T/new --ops backward --dtypes bf16 --head-dims 256 --causal yes --deterministic no
comp $FM --out $T/main --ops backward --dtypes bf16 --head-dims 256 --causal yes --deterministic no
n=flash_bwd_sm_80_bf16_d256_causal_smem227k
cp $T/new/$n.{json,ptx,sm_90.cubin} "$S/b256/"
/usr/bin/python3 $VAR $T/main/$n.json "$S/b256" main > /dev/null
cp "$S"/b80s/flash_fwd_sm_80_bf16_d256_causal_lse.{json,ptx,sm_90.cubin} "$S/b256/"
for a in new main; do ptxas -arch=sm_90 -v $T/$a/$n.ptx -o /dev/null 2>&1 | grep -A1 "properties for $n\$" | tail -1 | sed "s/^/$a: /"; done
du -sh "$S" "$S"/*; ls "$S/b256" "$S/planted"
