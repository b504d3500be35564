#!/usr/bin/env bash
# Stage H1's (branch s22-h1, twenty-second session) H200 run into $S (= /work/main/build/s22-h1-run).
# The sm_90a backward's main kernel at short N. While measuring, the branch's flash-opt read
# three temporary switches from the environment (removed after):
#   FLASH_BWD_SKIP=1  the first step's dQ GEMM (whose result every step 0 drops) not issued:
#                     its 8 wgmmas predicated on the step having a previous one (wgmmaSSIf)
#   FLASH_BWD_EXIT=1  the block leaves once its last bulk reduction / TMA stores have READ
#                     shared memory (cp.async.bulk.wait_group.read 0), not once they completed
#   FLASH_BWD_PRE=1   the producer issues Q and dO of the first `stages` steps before
#                     griddepcontrol.wait (their shift and Δ rows after it)
#   FLASH_BWD_PLANT=1 (with SKIP) the planted bug: step 1's dQ GEMM (step 0's real dQ) not issued
#   chk-X:  every sm_90a backward plan (bf16/f16 x D 64/128/256 x causal both x both plans)
#   bench:  bf16 D 64/128/256 atomic plans: se (= skip + exit) as the default, main 2485bd3
#           (/work/baseline-s22/sm90a-bwd), skip, exit, all (= skip + exit + pre) as variants
set -eu
WT=/work/wt-h2; S=${S:-/work/main/build/s22-h1-run}; L=${L:-/tmp/h1/stage}
R=$WT/docs/results/s22-h1-h200-2026-12-03
VAR=$R/variant.py; FO=$WT/build/bin/flash-opt; BB=/work/baseline-s22/sm90a-bwd
export PYTHONPATH=$WT/python
rm -rf "$S" "$L"; mkdir -p "$S/lib" "$L/bench"
cp -r $WT/python "$S/python"; find "$S/python" -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so "$S/lib/"; cp $R/run.sh $R/prof.py "$S/"
comp() { local out=$1; shift
  /usr/bin/python3 -m flash_mlir.compile --out "$out" --arch sm_90a --cubin-archs sm_90a --flash-opt $FO "$@" > /dev/null; }
FLASH_BWD_SKIP=1 comp "$L/chk-skip" --ops backward --deterministic both
FLASH_BWD_EXIT=1 comp "$L/chk-exit" --ops backward --deterministic both
FLASH_BWD_SKIP=1 FLASH_BWD_EXIT=1 comp "$L/chk-se" --ops backward --deterministic both
FLASH_BWD_SKIP=1 FLASH_BWD_EXIT=1 FLASH_BWD_PRE=1 comp "$L/chk-all" --ops backward --deterministic both
FLASH_BWD_SKIP=1 FLASH_BWD_PLANT=1 comp "$L/plant" --ops backward --dtypes bf16 --head-dims 64,128 --deterministic no
# bench: se default; main, skip, exit, all as variants
for f in "$L"/chk-se/flash_bwd_sm_90a_bf16_d*; do case $f in *deterministic*|*.mlir) continue;; esac; cp "$f" "$L/bench/"; done
for v in skip exit all; do for j in "$L"/chk-$v/flash_bwd_sm_90a_bf16_d*.json; do
  case $j in *deterministic*) continue;; esac; /usr/bin/python3 $VAR $j "$L/bench" $v > /dev/null; done; done
for j in $BB/flash_bwd_sm_90a_bf16_d*.json; do
  case $j in *deterministic*) continue;; esac; /usr/bin/python3 $VAR $j "$L/bench" main > /dev/null; done
comp "$L/bench" --ops forward --lse yes --dtypes bf16 --head-dims 64,128,256
# spills (ptxas) of every staged kernel
for d in "$L"/chk-* "$L/plant" "$L/bench"; do echo "$(basename $d): $(/usr/bin/python3 -m flash_mlir.tools.check_bundles "$d" 2>&1 | tail -1)"; done
# the device loads the cubins: stage without .mlir and .ptx
for d in "$L"/*; do mkdir -p "$S/$(basename $d)"; cp "$d"/*.json "$d"/*.cubin "$S/$(basename $d)/"; done
du -sh "$S"; ls "$S/bench" | grep -c json
