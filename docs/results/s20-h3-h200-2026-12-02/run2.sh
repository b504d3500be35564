#!/usr/bin/env bash
# H3 run 2: correctness of the shipped build (ship90: main's split kernels, the paged
# merge kernel counting its parts before griddepcontrol.wait) and a planted bug.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h3res2; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/b; tar xzf $here/bundles.tgz -C $here/b
B=$here/b
pack() { tar czf $OUT/res.tgz -C $res . 2>/dev/null; }
py=python3
c=${CHECK_LIMIT:-90}
{
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/ship90 --json $res/check-ship90.json > $res/check-ship90.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/plantwait90 --only many,peaks,graph > $res/planted-nowait.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool memcheck \
  --kernel-name kns=flash_decode_paged --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/ship90 --small \
  --only many,peaks > $res/memcheck-ship90.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool racecheck \
  --kernel-name kns=merge --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/ship90 --small \
  --only peaks > $res/racecheck-ship90.log 2>&1 &
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 6
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
