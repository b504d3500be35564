#!/usr/bin/env bash
# H5 (nineteenth session, issue 17 item 5): the separate decode merge kernel with
# programmatic dependent launch, built into the compiler (branch decode-pdl-build-9).
# Staged as build/decode-pdl-build-9-run/ (this script, python/, lib/, bundles.tgz):
#   ours90 = sm_90a decode bundles of the branch (bf16/f16, D 64/128/256, split_kv+paged)
#   ours80 = sm_80 decode bundles of the branch (sm_90 cubins; PTX identical to main's)
#   main90 = main f4eef72's sm_90a decode bundles (bf16 D=128; /work/baseline-new/sm90a-dec)
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h5res; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/b; tar xzf $here/bundles.tgz -C $here/b
B=$here/b
pack() { tar czf $OUT/res.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench ($(date -u +%T))"
timeout ${BENCH_LIMIT:-70} $py -m flash_mlir.tools.decode_bench --bundles $B/ours90 \
  --baseline-bundles $B/main90 --gqa 8/1,32/8 \
  --rows 1x8192,1x32768,1x131072,64x1024,128x2048,8x32768 --rounds 3 \
  --json $res/bench.json > $res/bench.log 2>&1
echo "=== bench rc=$? in $(( $(date +%s) - t0 ))s"; pack
c=${CHECK_LIMIT:-80}
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/ours90 --json $res/check-ours90.json > $res/check-ours90.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/ours80 --quick --json $res/check-ours80.json > $res/check-ours80.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/ours90 --plant merge-sms --only many,peaks > $res/planted-merge-sms.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool memcheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/ours90 --small \
  --only many,peaks > $res/memcheck-ours90.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool racecheck \
  --kernel-name kns=merge --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/ours90 --small \
  --only peaks > $res/racecheck-ours90.log 2>&1 &
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 6
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
