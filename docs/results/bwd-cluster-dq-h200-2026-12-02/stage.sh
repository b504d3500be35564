#!/usr/bin/env bash
# Build the bundle dirs for hA's H200 run (branch bwd-cluster-dq) into $S.
#   bcl:     D=256 backward bundles, the cluster form (flash-opt block-kv=128)
#            as the default plans, bf16/f16 x causal; the deterministic plans
#            (block_kv = 64, unchanged) from the model (flash_mlir.compile)
#   planted: bcl's bf16 cluster bundles with every st.shared::cluster
#            deleted from the PTX (the partner's part never arrives), cubin
#            re-assembled with ptxas
#   bvar:    bench: the cluster form (default), main's kernel (e8651fd,
#            /work/baseline/sm90a-bwd) as variant `main` and, launched in
#            clusters of two, as variant `clmain`; forward bundles
set -eu
WT=/work/wt-layout; S=${S:-/work/main/build/hA-run}
FO=$WT/build/bin/flash-opt; R=$WT/docs/results/bwd-cluster-dq-h200-2026-12-02
VAR=$WT/docs/results/bwd-d256-perf-h200-2026-12-02/variant.py
export PYTHONPATH=$WT/python
rm -rf "$S" /tmp/hAx; mkdir -p "$S/lib" /tmp/hAx
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so "$S/lib/"; cp $R/run.sh "$S/run.sh"
src() { # d causal det dtype -> name; writes /tmp/hAx/NAME.mlir
  local d=$1 c=$2 det=$3 t=$4 n=4096; local x="tensor<1x1x${n}x${d}x${t}>" l="tensor<1x1x${n}xf32>"
  local attrs=""; [ $c = 1 ] && attrs="causal"; [ $det = 1 ] && attrs="${attrs:+$attrs, }deterministic"
  local name="flash_bwd_sm_90a_${t}_d${d}"; [ $c = 1 ] && name+="_causal"; [ $det = 1 ] && name+="_deterministic"
  echo "$name"
  cat > "/tmp/hAx/$name.mlir" <<EOT
func.func @$name(%q: $x, %k: $x, %v: $x, %o: $x, %do: $x, %lse: $l) -> ($x, $x, $x) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {$attrs} : $x, $x, $x, $x, $x, $l -> $x, $x, $x
  return %dq, %dk, %dv : $x, $x, $x
}
EOT
}
cluster() { # dir causal dtype
  local name; name=$(src 256 $2 0 $3); mkdir -p "$1"
  $FO /tmp/hAx/$name.mlir --flash-to-ptx="arch=sm_90a bundle-dir=$1 cubin-archs=sm_90a block-q=64 block-kv=128 stages=2" -o /dev/null
}
cd /tmp/hAx
/usr/bin/python3 -m flash_mlir.compile --out /tmp/hAx/model --arch sm_90a --ops backward --head-dims 256 --cubin-archs sm_90a --flash-opt $FO > /dev/null
mkdir -p "$S/bcl"; cp /tmp/hAx/model/*deterministic* "$S/bcl/"
for c in 0 1; do for t in bf16 f16; do cluster "$S/bcl" $c $t; done; done
mkdir -p "$S/planted"
for c in 0 1; do
  name=$(src 256 $c 0 bf16); cluster /tmp/hAx/pl $c bf16
  cp /tmp/hAx/pl/$name* "$S/planted/"
  ptx=$(ls "$S/planted/"${name}*.ptx | grep -v -e preprocess -e convert | head -1)
  n=$(grep -c 'st.shared::cluster' "$ptx"); sed -i '/st.shared::cluster/d' "$ptx"
  cub=$(ls "$S/planted/"*.cubin | grep -F "$(basename "${ptx%.ptx}")" | head -1)
  echo "planted: $ptx ($n stores deleted) -> $cub"
  ptxas -arch=sm_90a -o "$cub" "$ptx"
done
mkdir -p "$S/bvar"
for c in 0 1; do cluster "$S/bvar" $c bf16; done
for j in /work/baseline/sm90a-bwd/flash_bwd_sm_90a_bf16_d256.json /work/baseline/sm90a-bwd/flash_bwd_sm_90a_bf16_d256_causal.json; do
  /usr/bin/python3 $VAR $j "$S/bvar" main > /dev/null; done
# clmain (timing only): main's kernel as it is, launched in clusters of two
# (.explicitcluster .reqnctapercluster 2, 1, 1 added to its PTX, cubin
# re-assembled; the bench's K/V tiles are even in number): what the cluster
# launch costs by itself
for j in /work/baseline/sm90a-bwd/flash_bwd_sm_90a_bf16_d256.json /work/baseline/sm90a-bwd/flash_bwd_sm_90a_bf16_d256_causal.json; do
  n=$(/usr/bin/python3 $VAR $j "$S/bvar" clmain)
  grep -c '^.minnctapersm 1$' "$S/bvar/$n.ptx"
  sed -i 's/^.minnctapersm 1$/.minnctapersm 1\n.explicitcluster\n.reqnctapercluster 2, 1, 1/' "$S/bvar/$n.ptx"
  ptxas -arch=sm_90a -o "$S/bvar/$n.sm_90a.cubin" "$S/bvar/$n.ptx"
done
/usr/bin/python3 -m flash_mlir.compile --out "$S/bvar" --arch sm_90a --ops forward --lse yes --dtypes bf16 --head-dims 256 --cubin-archs sm_90a --flash-opt $FO > /dev/null
rm -f "$S"/*/*.mlir
du -sh "$S"; ls "$S"/*/
