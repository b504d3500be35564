#!/usr/bin/env bash
# Build the bundle dirs for the h2 GPU run into $S (staging dir).
set -eu
WT=/work/wt-layout; S=${S:-/work/main/build/h2-run}
FO=${FO:-$WT/build/bin/flash-opt}; FOP=${FOP:-/tmp/h2-flash-opt-planted}
export PYTHONPATH=$WT/python
rm -rf "$S"; mkdir -p "$S"
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +
mkdir -p "$S/lib"; cp $WT/build/lib/libflash_runtime.so "$S/lib/"
cp $WT/docs/results/bwd-perf-3-h200-2026-12-02/run.sh "$S/run.sh"
cd /tmp/h2x
# main's bundles (the model's schedule) + forward bundles (bench's O and LSE)
/usr/bin/python3 -m flash_mlir.compile --out "$S/bvar" --arch sm_90a --ops backward --dtypes bf16 --head-dims 64,128 --deterministic no --cubin-archs sm_90a --flash-opt $FO > /dev/null
/usr/bin/python3 -m flash_mlir.compile --out "$S/bvar" --arch sm_90a --ops forward --lse yes --dtypes bf16 --head-dims 64,128 --cubin-archs sm_90a --flash-opt $FO > /dev/null
# one bundle of op source $2 with flash-opt options $3 into dir $1, optionally renamed as variant $4
src() { # d causal det n
  local d=$1 c=$2 det=$3 n=4096 t=$4; local x="tensor<1x1x${n}x${d}x${t}>" l="tensor<1x1x${n}xf32>"
  local attrs=""; [ $c = 1 ] && attrs="causal"; [ $det = 1 ] && attrs="${attrs:+$attrs, }deterministic"
  local name="flash_bwd_sm_90a_${t}_d${d}"; [ $c = 1 ] && name+="_causal"; [ $det = 1 ] && name+="_deterministic"
  echo "$name"
  cat > "/tmp/h2x/$name.mlir" <<EOT
func.func @$name(%q: $x, %k: $x, %v: $x, %o: $x, %do: $x, %lse: $l) -> ($x, $x, $x) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {$attrs} : $x, $x, $x, $x, $x, $l -> $x, $x, $x
  return %dq, %dk, %dv : $x, $x, $x
}
EOT
}
one() { # dir fo opts d c det t [variant]
  local dir=$1 fo=$2 opts=$3 d=$4 c=$5 det=$6 t=$7 var=${8:-}
  local name; name=$(src $d $c $det $t); mkdir -p "$dir"
  local v=""; [ $det = 1 ] && v="variant=deterministic"
  if [ -n "$var" ]; then
    mkdir -p /tmp/h2x/tmpb; rm -f /tmp/h2x/tmpb/*
    $fo /tmp/h2x/$name.mlir --flash-to-ptx="arch=sm_90a bundle-dir=/tmp/h2x/tmpb cubin-archs=sm_90a $opts" -o /dev/null
    /usr/bin/python3 $WT/docs/results/bwd-d256-perf-h200-2026-12-02/variant.py /tmp/h2x/tmpb/$name.json "$dir" $var > /dev/null
  else
    $fo /tmp/h2x/$name.mlir --flash-to-ptx="arch=sm_90a bundle-dir=$dir cubin-archs=sm_90a $opts $v" -o /dev/null
  fi
}
for c in 0 1; do
  one "$S/bvar" $FO "block-q=128 stages=2" 64 $c 0 bf16 q128
  one "$S/bvar" $FO "block-q=64 stages=4" 64 $c 0 bf16 s4
  one "$S/bvar" $FO "block-q=64 stages=3" 64 $c 0 bf16 s3
  one "$S/bvar" $FO "block-q=64 stages=3" 128 $c 0 bf16 s3
  for t in bf16 f16; do for det in 0 1; do
    one "$S/c64q128" $FO "block-q=128 stages=2" 64 $c $det $t
    one "$S/c64s3" $FO "block-q=64 stages=3" 64 $c $det $t
    one "$S/c128s3" $FO "block-q=64 stages=3" 128 $c $det $t
  done; done
  for det in 0 1; do one "$S/planted" $FOP "block-q=128 stages=2" 64 $c $det bf16; done
done
rm -f "$S"/*/*.mlir
du -sh "$S"; ls "$S"/*/ | head -80
