#!/usr/bin/env bash
# H3 (twenty-second session, issue 17): the GPU check of the split-KV kernels
# whose warp 0 combines the four warps alone (sm_80 plans of 64-row tiles at
# D = 64 and 32-row tiles at D = 128, run on the H200 through their sm_90
# cubins), a planted bug in that combine, the rows cases on the shipped
# 16-row plans, memcheck and racecheck on the small cases. See stage.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h3res; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/b; tar xzf $here/bundles.tgz -C $here/b
B=$here/b
py=python3
c=${CHECK_LIMIT:-75}
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/rows64 --only rows --min-block-q 64 \
  --json $res/check-rows64.json > $res/check-rows64.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/plant --only rows --min-block-q 64 \
  --json $res/planted.json > $res/planted.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/ship16 --only rows \
  --json $res/check-ship16.json > $res/check-ship16.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool memcheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/rows64 --only rows --small --min-block-q 64 \
  > $res/memcheck-rows64.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool racecheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/rows64 --only rows --small --min-block-q 64 \
  > $res/racecheck-rows64.log 2>&1 &
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 8
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
tar czf $OUT/res.tgz -C $res . 2>/dev/null
