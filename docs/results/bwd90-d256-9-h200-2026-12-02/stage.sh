#!/usr/bin/env bash
# Stage H1's (branch bwd90-d256-9) H200 run into $S (= /work/main/build/bwd90-d256-9-run).
# The candidates are one flash-opt with the experiment knob FLASH_D256_STEP (bits, only
# the D = 256 split-columns kernel reads it; 0 = main's kernel, PTX cmp-identical):
#   1  the previous step's dQ part 0 issued right behind this step's dV and dK GEMMs,
#      before waiting for them (A)
#   2|64  dQ part 1 issued after part 0's first slice has been staged, so that it runs
#      while part 0's second slice is staged and reduced (B)
#   4  (with 1) this step's dS^T written right after the early dQ part 0 is issued
# Bundle directories:
#   bchk:  v67 (A + B) as the default plans (bf16/f16 x causal x both plans) and, as
#          variants, v1, v5, v66, v71 (their non-deterministic plans)
#   c1, c66: v1 and v66 as the default plans (their deterministic plans: bitwise repeats)
#   planted: v67's bf16 plain plans with every slice reduction's size 2048 made 1024
#   bvar:  bench: v67 (default), main's kernel (/work/baseline-new/sm90a-bwd) as `main`,
#          v1, v5, v66, v71, and v67 without its reductions (`nored`) or without every
#          other one (`red50`), timing only; forward bf16 D = 256 bundles with LSE
set -eu
WT=/work/wt-d256; S=${S:-/work/main/build/bwd90-d256-9-run}
R=$WT/docs/results/bwd90-d256-9-h200-2026-12-02
VAR=$R/variant.py; FO=$WT/build/bin/flash-opt
BB=/work/baseline-new/sm90a-bwd
export PYTHONPATH=$WT/python
rm -rf "$S" /tmp/h1s; mkdir -p "$S/lib" "$S/bchk" "$S/c1" "$S/c66" "$S/planted" "$S/bvar" /tmp/h1s
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so "$S/lib/"; cp $R/run.sh "$S/run.sh"
for v in 1 5 66 67 71; do
  FLASH_D256_STEP=$v /usr/bin/python3 -m flash_mlir.compile --out /tmp/h1s/v$v --arch sm_90a --ops backward --head-dims 256 --cubin-archs sm_90a --flash-opt $FO > /dev/null
done
cp /tmp/h1s/v67/*.{json,ptx,cubin} "$S/bchk/"
for v in 1 5 66 71; do
  for j in /tmp/h1s/v$v/flash_bwd_sm_90a_*_d256.json /tmp/h1s/v$v/flash_bwd_sm_90a_*_d256_causal.json; do
    /usr/bin/python3 $VAR $j "$S/bchk" v$v > /dev/null; done
done
cp /tmp/h1s/v1/*.{json,ptx,cubin} "$S/c1/"
cp /tmp/h1s/v66/*.{json,ptx,cubin} "$S/c66/"
# planted
for c in "" _causal; do
  n=flash_bwd_sm_90a_bf16_d256$c; cp /tmp/h1s/v67/$n.{json,ptx,sm_90a.cubin} "$S/planted/"
  k=$(grep -c 'bulk_group.add.f32 \[%rd[0-9]*\], \[%r[0-9]*\], 2048;' "$S/planted/$n.ptx")
  sed -i -E 's/(bulk_group.add.f32 \[%rd[0-9]+\], \[%r[0-9]+\]), 2048;/\1, 1024;/' "$S/planted/$n.ptx"
  echo "planted $n: $k reductions halved"; ptxas -arch=sm_90a -o "$S/planted/$n.sm_90a.cubin" "$S/planted/$n.ptx"
done
# bench
for c in "" _causal; do
  n=flash_bwd_sm_90a_bf16_d256$c
  cp /tmp/h1s/v67/$n.{json,ptx,sm_90a.cubin} "$S/bvar/"
  /usr/bin/python3 $VAR $BB/$n.json "$S/bvar" main > /dev/null
  for v in 1 5 66 71; do /usr/bin/python3 $VAR /tmp/h1s/v$v/$n.json "$S/bvar" v$v > /dev/null; done
  for t in nored red50; do
    rm -rf /tmp/h1s/$t; mkdir -p /tmp/h1s/$t; cp /tmp/h1s/v67/$n.{json,ptx,sm_90a.cubin} /tmp/h1s/$t/
    k=$(grep -c 'cp.reduce.async.bulk' /tmp/h1s/$t/$n.ptx)
    if [ $t = nored ]; then sed -i -E 's|^(\s*)(cp.reduce.async.bulk.*)$|\1// \2|' /tmp/h1s/$t/$n.ptx
    else awk '/cp.reduce.async.bulk/ { if (n++ % 2 == 1) { sub(/cp.reduce/, "// cp.reduce") } } { print }' /tmp/h1s/$t/$n.ptx > /tmp/h1s/$t/x.ptx && mv /tmp/h1s/$t/x.ptx /tmp/h1s/$t/$n.ptx; fi
    echo "$t $n: of $k reductions, $(grep -c '// cp.reduce' /tmp/h1s/$t/$n.ptx) commented out"; ptxas -arch=sm_90a -o /tmp/h1s/$t/$n.sm_90a.cubin /tmp/h1s/$t/$n.ptx
    /usr/bin/python3 $VAR /tmp/h1s/$t/$n.json "$S/bvar" $t > /dev/null
  done
done
/usr/bin/python3 -m flash_mlir.compile --out "$S/bvar" --arch sm_90a --ops forward --lse yes --dtypes bf16 --head-dims 256 --cubin-archs sm_90a --flash-opt $FO > /dev/null
rm -f "$S"/*/*.mlir
du -sh "$S"; for d in "$S"/*/; do echo "$d $(ls $d | wc -l)"; done
