#!/usr/bin/env bash
# Stage H1's (branch bwd90-d256-8) H200 run into $S (= /work/main/build/bwd90-d256-8-run).
#   bchk:  the D = 256 sm_90a backward bundles (bf16/f16 x causal x both plans) of
#          the two candidates: `ring` (commit 8293761: blocked accumulator + dO in one
#          slot + a ring of three dQ slices per warp) as the default plans, `blocked`
#          (commit 5be8b83: the blocked accumulator alone) as variant `blocked`
#   planted: the ring's bf16 plain plans with every dQ slice reduction's size 2048
#          made 1024 in the PTX (rows 8-15 of each slice never added), re-assembled
#   bvar:  bench: ring (default), blocked, main's kernel (/work/baseline/sm90a-bwd,
#          = main c0cbd02) as variant `main`, the ring with its reductions left out
#          (`nored`, timing only, dQ wrong), forward bf16 D = 256 bundles with LSE
set -eu
WT=/work/wt-d256; S=${S:-/work/main/build/bwd90-d256-8-run}
R=$WT/docs/results/bwd90-d256-8-h200-2026-12-02
VAR=$WT/docs/results/bwd-d256-perf-h200-2026-12-02/variant.py
FR=${FR:-/tmp/h1/flash-opt-ring}; FB=${FB:-/tmp/h1/flash-opt-blocked}
BB=/work/baseline/sm90a-bwd
export PYTHONPATH=$WT/python
rm -rf "$S" /tmp/h1s; mkdir -p "$S/lib" "$S/bchk" "$S/planted" "$S/bvar" /tmp/h1s
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so "$S/lib/"; cp $R/run.sh "$S/run.sh"
comp() { /usr/bin/python3 -m flash_mlir.compile --out "$1" --arch sm_90a --ops backward --head-dims 256 --cubin-archs sm_90a --flash-opt "$2" > /dev/null; }
comp /tmp/h1s/ring $FR; comp /tmp/h1s/blocked $FB
cp /tmp/h1s/ring/*.{json,ptx,cubin} "$S/bchk/"
for j in /tmp/h1s/blocked/*.json; do /usr/bin/python3 $VAR $j "$S/bchk" blocked > /dev/null; done
# planted
for c in "" _causal; do
  n=flash_bwd_sm_90a_bf16_d256$c; cp /tmp/h1s/ring/$n.{json,ptx,sm_90a.cubin} "$S/planted/"
  k=$(grep -c 'bulk_group.add.f32 \[%rd[0-9]*\], \[%r[0-9]*\], 2048;' "$S/planted/$n.ptx")
  sed -i -E 's/(bulk_group.add.f32 \[%rd[0-9]+\], \[%r[0-9]+\]), 2048;/\1, 1024;/' "$S/planted/$n.ptx"
  echo "planted $n: $k reductions halved"; ptxas -arch=sm_90a -o "$S/planted/$n.sm_90a.cubin" "$S/planted/$n.ptx"
done
# bench
for c in "" _causal; do
  n=flash_bwd_sm_90a_bf16_d256$c
  cp /tmp/h1s/ring/$n.{json,ptx,sm_90a.cubin} "$S/bvar/"
  /usr/bin/python3 $VAR /tmp/h1s/blocked/$n.json "$S/bvar" blocked > /dev/null
  /usr/bin/python3 $VAR $BB/$n.json "$S/bvar" main > /dev/null
  rm -rf /tmp/h1s/nr; mkdir -p /tmp/h1s/nr; cp /tmp/h1s/ring/$n.{json,ptx,sm_90a.cubin} /tmp/h1s/nr/
  k=$(grep -c 'cp.reduce.async.bulk' /tmp/h1s/nr/$n.ptx)
  sed -i -E 's|^(\s*)(cp.reduce.async.bulk.*)$|\1// \2|' /tmp/h1s/nr/$n.ptx
  echo "nored $n: $k reductions commented out"; ptxas -arch=sm_90a -o /tmp/h1s/nr/$n.sm_90a.cubin /tmp/h1s/nr/$n.ptx
  /usr/bin/python3 $VAR /tmp/h1s/nr/$n.json "$S/bvar" nored > /dev/null
done
/usr/bin/python3 -m flash_mlir.compile --out "$S/bvar" --arch sm_90a --ops forward --lse yes --dtypes bf16 --head-dims 256 --cubin-archs sm_90a --flash-opt $FR > /dev/null
rm -f "$S"/*/*.mlir
du -sh "$S"; ls "$S"/*/ | head -80
