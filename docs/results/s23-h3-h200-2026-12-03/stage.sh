#!/usr/bin/env bash
# Stage H3's (branch s23-h3, twenty-third session) H200 run into $S (= /work/main/build/s23-h3-run).
# Candidate `conv`: the dQ convert overlaps the main kernel's last wave (per-(batch, q-head)
# completion counters, the convert launched with programmatic dependent launch); while
# measuring, flash-opt takes it from the environment:
#   FLASH_BWD_CONV=1        the candidate (sm_90a atomic plans at D = 64 and 128)
#   FLASH_BWD_CONV_PLANT=1  planted bug: the convert waits for one K/V tile fewer
#   FLASH_BWD_CONV_PLANT=2  planted bug: the convert does not wait at all
# pm, pc:  bf16 D 64/128 forward (LSE) + backward atomic plans, main (ffd6bf8) and conv (kprof.py)
# bench:   pc with main's backward plans as variant "main"
# chk:     every sm_90a backward plan with the switch (bf16/f16, D 64/128/256, causal both, both plans)
# plant1/2: bf16 D 64/128 atomic plans with the planted bugs
set -eu
WT=/work/wt-h3; S=${S:-/work/main/build/s23-h3-run}; L=/tmp/h3/stage
R=$WT/docs/results/s23-h3-h200-2026-12-03; FO=$WT/build/bin/flash-opt
export PYTHONPATH=$WT/python
rm -rf "$S" "$L"; mkdir -p "$S/lib" "$L"
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so "$S/lib/"; cp $R/run.sh $R/kprof.py "$S/"
comp() { local out=$1; shift
  /usr/bin/python3 -m flash_mlir.compile --out "$out" --arch sm_90a --cubin-archs sm_90a --flash-opt $FO "$@" > /dev/null; }
SIDE="--dtypes bf16 --head-dims 64,128 --deterministic no"
comp $L/pm --ops forward,backward --lse yes $SIDE
FLASH_BWD_CONV=1 comp $L/pc --ops forward,backward --lse yes $SIDE
FLASH_BWD_CONV=1 comp $L/chk --ops backward --deterministic both
FLASH_BWD_CONV=1 FLASH_BWD_CONV_PLANT=1 comp $L/plant1 --ops backward $SIDE
FLASH_BWD_CONV=1 FLASH_BWD_CONV_PLANT=2 comp $L/plant2 --ops backward $SIDE
# main's backward PTX = baseline-s23's
for f in $L/pm/flash_bwd_*.ptx; do cmp $f /work/baseline-s23/sm90a-bwd/$(basename $f); done
mkdir -p $L/bench; cp $L/pc/* $L/bench/
for j in $L/pm/flash_bwd_*.json; do /usr/bin/python3 $R/variant.py $j $L/bench main > /dev/null; done
for d in $L/*; do echo "$(basename $d): $(/usr/bin/python3 -m flash_mlir.tools.check_bundles $d 2>&1 | tail -1)"; done
for d in $L/*; do mkdir -p "$S/$(basename $d)"; cp "$d"/*.json "$d"/*.cubin "$S/$(basename $d)/"; done
du -sh "$S"
