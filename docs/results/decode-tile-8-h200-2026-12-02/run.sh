#!/usr/bin/env bash
# H3 (eighteenth session, issue 17, branch decode-tile-8): the split kernel's
# per-tile instruction cuts and the merge counter, timed against main's decode
# bundles in the same interleaved rounds, then the checks, side by side.
# Staged as build/decode-tile-8-run/ (this script, python/, lib/, bundles.tgz).
# Bundles (FLASH_DECODE_EXP, a temporary compile-time switch):
#   base90 = main c0cbd02's flash-opt (bf16 D=128, no causal, no LSE)
#   all90  = lazy,addr,acq,pro ("ours" in the bench); allv90 = vote,addr,acq,pro
#   vote90, lazy90, addr90, acq90, pro90 = one change each
#   all80, allv80 = sm_80 plans (sm_90 cubins); plant90 = lazy,plant (O never
#   rescaled: must fail)
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h3res; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/bundles; tar xzf $here/bundles.tgz -C $here/bundles
B=$here/bundles
pack() { tar czf $OUT/res.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench ($(date -u +%T))"
timeout ${BENCH_LIMIT:-75} $py -m flash_mlir.tools.decode_bench --bundles $B/all90 \
  --baseline-bundles $B/base90 --variant allv=$B/allv90 --variant vote=$B/vote90 \
  --variant lazy=$B/lazy90 --variant addr=$B/addr90 --variant acq=$B/acq90 \
  --variant pro=$B/pro90 --gqa 8/1,32/8 \
  --rows 1x8192,1x32768,1x131072,64x1024,128x2048,8x32768 --rounds 3 \
  --json $res/bench.json > $res/bench.log 2>&1
echo "=== bench rc=$? in $(( $(date +%s) - t0 ))s"; pack
c=${CHECK_LIMIT:-110}
for v in all allv vote lazy addr acq pro; do
  timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/${v}90 --json $res/check-${v}90.json > $res/check-${v}90.log 2>&1 &
done
for v in all allv; do
  timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/${v}80 --quick --json $res/check-${v}80.json > $res/check-${v}80.log 2>&1 &
done
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/plant90 --only split,many,peaks > $res/planted-plant90.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool memcheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/all90 --small \
  --only paged,split,many,peaks > $res/memcheck-all90.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool racecheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/all90 --small \
  --only paged,many > $res/racecheck-all90.log 2>&1 &
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 4
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
