#!/usr/bin/env bash
# h3 (fourteenth session, issue 17), run 2: the merge in one pass with a
# running maximum, a batch of parts sized by Dv (16 at Dv = 128), parts past
# the count not read. One H200 run: the decode table (ours = this branch's
# sm_90a bundles, [baseline] = main 099fd16's, [run1] = run 1's build (parts
# past the count read as the last part), [b32] = a batch of 32 parts at
# Dv = 128, in the same interleaved rounds, with SDPA cuDNN/FA2 and the read
# ceiling), then
# the full decode checks on sm_90a and sm_80 (its sm_90 cubins), the planted
# bugs (table-row; the merge without its rescale: must fail), memcheck and
# racecheck, side by side. Writes h3-results.tgz into $OUT.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h3res; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/build/lib/libflash_runtime.so
t0=$(date +%s)
pack() { tar czf $OUT/h3-results.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench ($(date -u +%T))"
var=""; for v in run1 b32; do [ -d $here/bundles/$v ] && var="$var --variant $v=$here/bundles/$v"; done
timeout ${BENCH_LIMIT:-120} $py -m flash_mlir.tools.decode_bench --bundles $here/bundles/sm90a \
  --baseline-bundles $here/bundles/base-sm90a $var --json $res/bench.json > $res/bench.log 2>&1
echo "=== bench rc=$? in $(( $(date +%s) - t0 ))s"; pack
c=${CHECK_LIMIT:-150}
for a in sm90a sm80; do
  timeout $c $py -m flash_mlir.tools.decode_check --bundles $here/bundles/$a \
    --json $res/check-$a.json > $res/check-$a.log 2>&1 &
  timeout $c $py -m flash_mlir.tools.decode_check --bundles $here/bundles/$a --quick \
    --plant table-row --only paged,many > $res/planted-$a.log 2>&1 &
  for tool in memcheck racecheck; do
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool $tool \
      --kernel-name kns=flash_decode --error-exitcode 9 \
      $py -m flash_mlir.tools.decode_check --bundles $here/bundles/$a --small \
      --only paged,split,many > $res/$tool-$a.log 2>&1 &
  done
done
if [ -d $here/bundles/plant-norescale ]; then
  timeout $c $py -m flash_mlir.tools.decode_check --bundles $here/bundles/plant-norescale \
    --only paged,split,many > $res/planted-norescale.log 2>&1 &
fi
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 4
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
