#!/usr/bin/env bash
# Build machine: stage H2's run 1 (twenty-third session, issue 17 item 5) as
# /work/main/build/s23-h2-run: main ffd6bf8's sm_90a decode bundles (bf16 D = 128,
# compiled by this branch's flash-opt, whose compiler sources are main's), two copies
# (main90 = --bundles, mainb90 = --variant: the noise floor), this branch's python/
# (decode_bench --page-order) and the runtime library. Diagnostics (FLASH_DECODE_EXP,
# diag.diff on main ffd6bf8, not on the branch; right only for decode_bench's
# --page-order sequential tables without --table-pad):
#   L    idloop: the loop's page lookups replaced by page = b*M + index (no ld.shared)
#   LS   L + idstart: the prologue's table loads too (no table load before the first copy)
#   LSN  LS + idlen: length = M*S, no seq_lens load (no dependent load before the first copy)
# Needs diag.diff applied to $W and built (git apply; FLASH_JOBS=1 bash scripts/build.sh);
# main90 is compiled by the same build with the switches unset (PTX = main's).
set -eu
W=${W:-/work/wt-h2}; S=/work/main/build/s23-h2-run; T=$(mktemp -d)
R=$W/docs/results/s23-h2-h200-2026-12-03
cd $W
export PYTHONPATH=python
/usr/bin/python3 -m flash_mlir.compile --out $T/main90 --flash-opt $W/build/bin/flash-opt \
  --arch sm_90a --ops split_kv,paged --dtypes bf16 --head-dims 128 --causal no --lse no \
  --cubin-archs sm_90a > $T/main90.log 2>&1
small="--arch sm_90a --ops split_kv,paged --dtypes bf16 --head-dims 128 --causal no --lse no --cubin-archs sm_90a"
c() { local name=$1 exp=$2
      FLASH_DECODE_EXP=$exp /usr/bin/python3 -m flash_mlir.compile --out $T/$name --flash-opt $W/build/bin/flash-opt $small > $T/$name.log 2>&1; }
c L90 idloop; c LS90 idloop,idstart; c LSN90 idloop,idstart,idlen
# The diagnostics need diag.diff in the build: stop if a switch changed nothing.
for d in L90 LS90 LSN90; do
  if cmp -s $T/$d/flash_decode_paged_sm_90a_bf16_d128.ptx $T/main90/flash_decode_paged_sm_90a_bf16_d128.ptx; then
    echo "$d is main's PTX: build $W with diag.diff applied"; exit 1; fi
done
mkdir -p $R/build
rm -rf $S; mkdir -p $S/b/main90 $S/b/mainb90 $S/lib
for d in main90 L90 LS90 LSN90; do
  /usr/bin/python3 -m flash_mlir.tools.check_bundles $T/$d > $R/build/check_bundles-$d.log 2>&1 || echo "SPILLS? $d"
  mkdir -p $S/b/$d; cp $T/$d/*.json $T/$d/*.ptx $T/$d/*.cubin $S/b/$d/
done
cp $T/main90/*.json $T/main90/*.ptx $T/main90/*.cubin $S/b/mainb90/
cp build/lib/libflash_runtime.so $S/lib/; cp -r python $S/python; rm -rf $S/python/tests
find $S/python -name __pycache__ -prune -exec rm -rf {} +
(cd $S && tar czf bundles.tgz -C b . && rm -rf b)
cp $R/run.sh $R/ncu_pages.py $R/tables.py $S/
echo "$T"; du -sh $S
# H200: run(command="bash build/s23-h2-run/run.sh", carry=["build/s23-h2-run"], timeout_s=240)
