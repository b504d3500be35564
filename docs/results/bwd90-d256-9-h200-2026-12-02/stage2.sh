#!/usr/bin/env bash
# Stage H1's second H200 run (branch bwd90-d256-9) into $S (= /work/main/build/bwd90-d256-9-run2):
#   r:       the role-split form (FLASH_D256_STEP=128: consumer 0 computes S^T, P and dV,
#            consumer 1 dP^T, dS and dK, P handed over in shared memory as f32; dQ as in
#            main's split-columns form) as the default plans, bf16/f16 x causal x both plans
#   planted: its bf16 plain plans with every slice reduction's size 2048 made 1024
#   bvar:    bench: the role-split form (default), main's kernel (/work/baseline-new/sm90a-bwd)
#            as variant `main`, forward bf16 D = 256 bundles with LSE
set -eu
WT=/work/wt-d256; S=${S:-/work/main/build/bwd90-d256-9-run2}
R=$WT/docs/results/bwd90-d256-9-h200-2026-12-02
VAR=$R/variant.py; FO=$WT/build/bin/flash-opt
BB=/work/baseline-new/sm90a-bwd
export PYTHONPATH=$WT/python
rm -rf "$S" /tmp/h1s2; mkdir -p "$S/lib" "$S/r" "$S/planted" "$S/bvar" /tmp/h1s2
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so "$S/lib/"; cp $R/run2.sh "$S/run.sh"
FLASH_D256_STEP=128 /usr/bin/python3 -m flash_mlir.compile --out /tmp/h1s2/r --arch sm_90a --ops backward --head-dims 256 --cubin-archs sm_90a --flash-opt $FO > /dev/null
cp /tmp/h1s2/r/*.{json,ptx,cubin} "$S/r/"
for c in "" _causal; do
  n=flash_bwd_sm_90a_bf16_d256$c; cp /tmp/h1s2/r/$n.{json,ptx,sm_90a.cubin} "$S/planted/"
  k=$(grep -c 'bulk_group.add.f32 \[%rd[0-9]*\], \[%r[0-9]*\], 2048;' "$S/planted/$n.ptx")
  sed -i -E 's/(bulk_group.add.f32 \[%rd[0-9]+\], \[%r[0-9]+\]), 2048;/\1, 1024;/' "$S/planted/$n.ptx"
  echo "planted $n: $k reductions halved"; ptxas -arch=sm_90a -o "$S/planted/$n.sm_90a.cubin" "$S/planted/$n.ptx"
  cp /tmp/h1s2/r/$n.{json,ptx,sm_90a.cubin} "$S/bvar/"
  /usr/bin/python3 $VAR $BB/$n.json "$S/bvar" main > /dev/null
done
/usr/bin/python3 -m flash_mlir.compile --out "$S/bvar" --arch sm_90a --ops forward --lse yes --dtypes bf16 --head-dims 256 --cubin-archs sm_90a --flash-opt $FO > /dev/null
rm -f "$S"/*/*.mlir
du -sh "$S"; for d in "$S"/*/; do echo "$d $(ls $d | wc -l)"; done
