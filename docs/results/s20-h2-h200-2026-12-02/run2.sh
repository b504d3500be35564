#!/usr/bin/env bash
# H2 run 2: the bound past 8 work units (final = bound 8 against full64L =
# bound 64, the same kernels), and the sanitizers and the planted bug on the
# final bundles (trigger after the K/V loop). See stage2.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h2res2; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/b; tar xzf $here/bundles.tgz -C $here/b
B=$here/b
pack() { tar czf $OUT/res.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout ${B_LIMIT:-22} $py -m flash_mlir.tools.decode_bench --bundles $B/final \
  --baseline-bundles $B/main --variant b64=$B/full64L \
  --gqa 8/1,32/8 --rows 2x32768,4x32768,16x8192,64x1024 --rounds 3 --host-calls 10 \
  --json $res/bench2.json > $res/bench2.log 2>&1
echo "=== bench rc=$? in $(( $(date +%s) - t0 ))s"; pack
c=${CHECK_LIMIT:-50}
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/final --plant merge-sms --only many,peaks > $res/planted-merge-sms-final.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/full64L --only many,peaks --json $res/check-full64L.json > $res/check-full64L.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool memcheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/final --small \
  --only many,peaks > $res/memcheck-final.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool racecheck \
  --kernel-name kns=merge --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/final --small \
  --only peaks > $res/racecheck-final.log 2>&1 &
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 3
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary2.log
pack
