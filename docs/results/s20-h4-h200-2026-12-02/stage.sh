#!/usr/bin/env bash
# Stage H4's (branch s20-h4) H200 run into $S (= /work/main/build/s20-h4-run).
#   chk:        every sm_90a backward plan of the branch head (bf16/f16 x D 64/128/256 x
#               causal both x both plans), sm_90a cubins
#   plant-main: bf16 D 64/128 plans of the branch head with every griddepcontrol.wait of
#               the MAIN kernel deleted from the PTX (it reads the shift and Δ and adds to
#               the dQ accumulator while the preprocess may still write them), re-assembled
#   plant-conv: the same with the CONVERT's griddepcontrol.wait deleted (it reads the
#               accumulator while the main kernel may still add to it)
#   slow-ok:    bf16 D 64/128 plans of the branch head with `nanosleep.u32 20000` right after
#               the preprocess's launch_dependents (the preprocess finishes >= 20 us after
#               the main kernel may start): the waits must keep it correct (a control)
#   slow-main:  slow-ok with the main kernel's waits deleted: the race made likely
#   bench:      bf16 D 64/128/256: the branch head (default plans), commit 0dc5fba's
#               (preprocess -> main only) as variant `pre`, main 67f485d's
#               (/work/baseline-s20/sm90a-bwd) as variant `main`; forward bundles with LSE
set -eu
WT=/work/wt-h4; S=${S:-/work/main/build/s20-h4-run}
R=$WT/docs/results/s20-h4-h200-2026-12-02
VAR=$WT/docs/results/bwd-d256-perf-h200-2026-12-02/variant.py
FO=$WT/build/bin/flash-opt; FP=${FP:-/tmp/h4/flash-opt-pre}; BB=/work/baseline-s20/sm90a-bwd
export PYTHONPATH=$WT/python
rm -rf "$S" /tmp/h4s; mkdir -p "$S/lib" "$S/chk" "$S/plant-main" "$S/plant-conv" "$S/slow-ok" "$S/slow-main" "$S/bench" /tmp/h4s
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so "$S/lib/"; cp $R/run.sh "$S/run.sh"
comp() { local out=$1 fo=$2; shift 2
  /usr/bin/python3 -m flash_mlir.compile --out "$out" --arch sm_90a --cubin-archs sm_90a --flash-opt "$fo" "$@" > /dev/null; }
comp "$S/chk" $FO --ops backward --deterministic both
# plants: delete the waits of one kernel (entry) of the PTX, re-assemble
plant() { local dir=$1 entry_suffix=$2 sleep=${3:-}
  for n in flash_bwd_sm_90a_bf16_d64 flash_bwd_sm_90a_bf16_d64_causal flash_bwd_sm_90a_bf16_d128 flash_bwd_sm_90a_bf16_d128_causal; do
    cp "$S/chk/$n".{json,ptx,sm_90a.cubin} "$dir/"
    awk -v want="$n$entry_suffix(" -v pre="${n}_preprocess(" -v sleep="$sleep" '/^\.visible \.entry /{cur=$3}
      !(cur==want && /griddepcontrol\.wait;/) {print}
      sleep != "" && cur==pre && /griddepcontrol\.launch_dependents;/ {print "\tnanosleep.u32 " sleep ";"}' "$dir/$n.ptx" > "$dir/$n.tmp"
    echo "$dir $n: $(( $(grep -c 'griddepcontrol.wait;' "$dir/$n.ptx") - $(grep -c 'griddepcontrol.wait;' "$dir/$n.tmp") )) waits deleted"
    mv "$dir/$n.tmp" "$dir/$n.ptx"; ptxas -arch=sm_90a -o "$dir/$n.sm_90a.cubin" "$dir/$n.ptx"
  done; }
plant "$S/plant-main" ""; plant "$S/plant-conv" "_convert"
plant "$S/slow-ok" "_none" 20000; plant "$S/slow-main" "" 20000
# bench
comp /tmp/h4s/ours $FO --ops backward --dtypes bf16 --deterministic no
comp /tmp/h4s/pre $FP --ops backward --dtypes bf16 --deterministic no
cp /tmp/h4s/ours/*.{json,ptx,cubin} "$S/bench/"
for j in /tmp/h4s/pre/*.json; do /usr/bin/python3 $VAR $j "$S/bench" pre > /dev/null; done
for j in $BB/flash_bwd_sm_90a_bf16_d*.json; do
  case $j in *deterministic*) continue;; esac; /usr/bin/python3 $VAR $j "$S/bench" main > /dev/null; done
comp "$S/bench" $FO --ops forward --lse yes --dtypes bf16 --head-dims 64,128,256
rm -f "$S"/*/*.mlir
du -sh "$S"; ls "$S/bench" | grep json | head -40
