#!/usr/bin/env bash
# h5 (fourteenth session, issue 17): one fence by one thread around the
# parts' counters. One H200 run: the decode table (ours = this branch's
# sm_90a bundles, [baseline] = main 2b0a8ec's, same interleaved rounds, with
# SDPA cuDNN/FA2 and the read ceiling), then side by side: the full decode
# checks on sm_90a and sm_80 (its sm_90 cubins), memcheck and racecheck
# (sm_90a, --small many parts), the planted bugs (early: the second-to-last
# block merges, must fail; nofence: both fences dropped, reported as seen).
# Writes h5-results.tgz into $OUT.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h5res; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/build/lib/libflash_runtime.so
t0=$(date +%s)
[ -f $here/bundles.tgz ] && tar xzf $here/bundles.tgz -C $here
pack() { tar czf $OUT/h5-results.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench ($(date -u +%T))"
timeout ${BENCH_LIMIT:-70} $py -m flash_mlir.tools.decode_bench --bundles $here/bundles/sm90a \
  --baseline-bundles $here/bundles/base-sm90a --json $res/bench.json > $res/bench.log 2>&1
echo "=== bench rc=$? in $(( $(date +%s) - t0 ))s"; pack
c=${CHECK_LIMIT:-75}
for a in sm90a sm80; do
  [ -d $here/bundles/$a ] || continue
  timeout $c $py -m flash_mlir.tools.decode_check --bundles $here/bundles/$a \
    --json $res/check-$a.json > $res/check-$a.log 2>&1 &
done
for tool in memcheck racecheck; do
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool $tool \
    --kernel-name kns=flash_decode --error-exitcode 9 \
    $py -m flash_mlir.tools.decode_check --bundles $here/bundles/sm90a --small \
    --only many > $res/$tool-sm90a.log 2>&1 &
done
for p in early nofence; do
  [ -d $here/bundles/plant-$p ] || continue
  timeout $c $py -m flash_mlir.tools.decode_check --bundles $here/bundles/plant-$p \
    --only split,many,graph,capture > $res/planted-$p.log 2>&1 &
done
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 4
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
