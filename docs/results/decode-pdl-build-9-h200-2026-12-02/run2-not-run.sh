#!/usr/bin/env bash
# H5 second run: the three-kernel form (split kernel with the fused merge =
# main's code; the separate merge's split kernel; the merge kernel).
# ours90 = sm_90a decode bundles of decode-pdl-build-9 (bf16/f16, D 64/128/256)
# main90 = main f4eef72's sm_90a decode bundles (bf16 D=128)
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h5res2; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/b; tar xzf $here/bundles.tgz -C $here/b
B=$here/b
pack() { tar czf $OUT/res.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
c=${CHECK_LIMIT:-25}
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/ours90 --only many,peaks,graph,capture --json $res/check-ours90.json > $res/check-ours90.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/ours90 --plant merge-sms --only many,peaks > $res/planted-merge-sms.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool memcheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/ours90 --small \
  --only peaks > $res/memcheck-ours90.log 2>&1 &
wait
echo "=== checks in $(( $(date +%s) - t0 ))s"; pack
timeout ${BENCH_LIMIT:-15} $py -m flash_mlir.tools.decode_bench --bundles $B/ours90 \
  --baseline-bundles $B/main90 --gqa 8/1,32/8 --rows 1x8192,1x32768,1x131072 --rounds 3 \
  --host-calls 50 --json $res/bench.json > $res/bench.log 2>&1
echo "=== bench rc=$? in $(( $(date +%s) - t0 ))s"
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 3
done
} 2>&1 | tee $res/summary.log
pack
