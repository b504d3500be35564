#!/usr/bin/env bash
# H3 (eighteenth session, issue 17, branch decode-tile-8), run 2: the shipped
# build (addr + acq + pro, no switch) against main's decode bundles in the
# same interleaved rounds, then its checks side by side, and two planted bugs.
# Staged as build/decode-tile-8-run/ (this script, python/, lib/, bundles2.tgz):
#   ship90 = sm_90a plans (all 48), ship80 = sm_80 plans (sm_80 + sm_90 cubins),
#   base90 = main c0cbd02 (bf16 D=128, no causal, no LSE),
#   plantaddr90 = ship with the contiguous full-tile copies one key off,
#   plantpro90 = ship with the prologue's pages one table entry off.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h3res2; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/bundles2; tar xzf $here/bundles2.tgz -C $here/bundles2
B=$here/bundles2
pack() { tar czf $OUT/res2.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench ($(date -u +%T))"
timeout ${BENCH_LIMIT:-22} $py -m flash_mlir.tools.decode_bench --bundles $B/ship90 \
  --baseline-bundles $B/base90 --gqa 8/1,32/8 \
  --rows 1x8192,1x32768,1x131072,64x1024,128x2048,8x32768 --rounds 3 \
  --json $res/bench2.json > $res/bench2.log 2>&1
echo "=== bench rc=$? in $(( $(date +%s) - t0 ))s"; pack
c=${CHECK_LIMIT:-42}
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/ship90 --json $res/check-ship90.json > $res/check-ship90.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/ship80 --quick --json $res/check-ship80.json > $res/check-ship80.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/plantaddr90 --only split,many,peaks > $res/planted-addr90.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/plantpro90 --only paged > $res/planted-pro90.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool memcheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/ship90 --small \
  --only paged,split,many,peaks > $res/memcheck-ship90.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool racecheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/ship90 --small \
  --only paged,many > $res/racecheck-ship90.log 2>&1 &
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 3
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary2.log
pack
