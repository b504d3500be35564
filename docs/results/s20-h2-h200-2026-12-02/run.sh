#!/usr/bin/env bash
# H2 (twentieth session, issue 17 item 5): the separate decode merge's bound
# (1 vs 8 work units, early or late trigger), the three-kernel form against
# main's two-kernel form and main before the separate merge, and more K/V
# stages for the one-block-an-SM row (B = 128 L = 2k). See stage.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h2res; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/b; tar xzf $here/bundles.tgz -C $here/b
B=$here/b
pack() { tar czf $OUT/res.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench 1 ($(date -u +%T))"
timeout ${B1_LIMIT:-110} $py -m flash_mlir.tools.decode_bench --bundles $B/full1 \
  --baseline-bundles $B/main --variant prev=$B/prev --variant b8=$B/full8 --variant b8late=$B/full8L \
  --gqa 8/1,32/8 --rows 1x8192,1x32768,1x131072,64x1024,128x2048,8x32768,2x32768,4x32768 \
  --rounds 3 --json $res/bench.json > $res/bench.log 2>&1
echo "=== bench 1 rc=$? in $(( $(date +%s) - t0 ))s"; pack
timeout ${B2_LIMIT:-35} $py -m flash_mlir.tools.decode_bench --bundles $B/full1 \
  --baseline-bundles $B/main --variant s4=$B/s4 --variant s6=$B/s6 \
  --gqa 8/1 --rows 128x2048,64x1024,8x32768 --rounds 3 --host-calls 20 \
  --json $res/bench-stages.json > $res/bench-stages.log 2>&1
echo "=== bench 2 rc=$? in $(( $(date +%s) - t0 ))s"; pack
c=${CHECK_LIMIT:-90}
for v in full1 full8 full8L; do
  timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/$v --json $res/check-$v.json > $res/check-$v.log 2>&1 &
done
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/full8 --plant merge-sms --only many,peaks > $res/planted-merge-sms-full8.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/full8 --plant table-row --only paged > $res/planted-table-row-full8.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool memcheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/full8 --small \
  --only many,peaks > $res/memcheck-full8.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool racecheck \
  --kernel-name kns=merge --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/full8 --small \
  --only peaks > $res/racecheck-full8.log 2>&1 &
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 6
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
