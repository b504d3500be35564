#!/usr/bin/env bash
# hB (seventeenth session, issue 17): the split phase's variants against main's
# decode bundles in the same interleaved rounds, then the checks of the candidate.
# Staged as build/hB-run/ (this script, python/, lib/, bundles.tgz):
#   bench: ours = cand (s2,rows1: two S accumulators + paged rows one tile ahead),
#   [baseline] = base90 (main 4431325's flash-opt), variants s2, s4, rows1, s2_min2;
#   then side by side: decode_check cand90 (sm_90a, full), cand80 (sm_80's sm_90
#   cubins, --quick), the planted bug plant90 (odd k-steps' S dropped; must fail),
#   memcheck on cand90 (--small, 9 cases).
# Variants come from a temporary compile-time switch FLASH_DECODE_EXP (not shipped).
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/hBres; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/bundles; tar xzf $here/bundles.tgz -C $here/bundles
B=$here/bundles
pack() { tar czf $OUT/hB-results.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench ($(date -u +%T))"
timeout ${BENCH_LIMIT:-45} $py -m flash_mlir.tools.decode_bench --bundles $B/s2_rows1 \
  --baseline-bundles $B/base90 --variant s2=$B/s2 --variant s4=$B/s4 \
  --variant rows1=$B/rows1 --variant s2min2=$B/s2_min2 --gqa 8/1,32/8 \
  --rows 1x8192,1x32768,1x131072,64x1024,128x2048,8x32768 --rounds 3 \
  --json $res/bench.json > $res/bench.log 2>&1
echo "=== bench rc=$? in $(( $(date +%s) - t0 ))s"; pack
c=${CHECK_LIMIT:-60}
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/cand90 --json $res/check-cand90.json > $res/check-cand90.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/cand80 --quick --json $res/check-cand80.json > $res/check-cand80.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/plant90 --only split,many,peaks > $res/planted-plant90.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool memcheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/cand90 --small \
  --only paged,split,many,peaks > $res/memcheck-cand90.log 2>&1 &
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 4
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
