#!/usr/bin/env bash
# hC (sixteenth session, issue 17): a timeline of the latency-bound decode rows
# by variants, and the two-rows-a-warp merge (pair) as a candidate.
# One H200 run, staged as build/hC-run/ (this script, python/, lib/, bundles.tgz):
#   bench: ours = bundles/pair90 (the candidate), [baseline] = base90 (main's
#   flash-opt), timing-only variants [nocount] (no fence, count or merge:
#   wrong output), [nomerge] (fence and count, no merge: wrong output),
#   [noload] (no K/V loads, no count: wrong output); same interleaved rounds,
#   with SDPA cuDNN/FA2 and the read ceiling;
#   then side by side: decode_check pair90 (sm_90a, full) and pair80 (sm_80's
#   sm_90 cubins, --quick), memcheck pair90, the planted pair bug (plant90:
#   the second row reads the first row's partials; must fail).
# Variants come from a temporary compile-time switch FLASH_DECODE_EXP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/hCres; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/bundles; tar xzf $here/bundles.tgz -C $here/bundles
B=$here/bundles
pack() { tar czf $OUT/hC-results.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench ($(date -u +%T))"
timeout ${BENCH_LIMIT:-75} $py -m flash_mlir.tools.decode_bench --bundles $B/pair90 \
  --baseline-bundles $B/base90 --variant nocount=$B/nocount90 --variant nomerge=$B/nomerge90 \
  --variant noload=$B/noload90 --gqa 8/1,32/8 \
  --rows 1x8192,1x32768,1x131072,64x1024,128x2048,8x32768 --rounds 3 \
  --json $res/bench.json > $res/bench.log 2>&1
echo "=== bench rc=$? in $(( $(date +%s) - t0 ))s"; pack
c=${CHECK_LIMIT:-70}
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/pair90 --json $res/check-pair90.json > $res/check-pair90.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/pair80 --quick --json $res/check-pair80.json > $res/check-pair80.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/plant90 --only split,many,peaks > $res/planted-pair90.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool memcheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/pair90 --small \
  --only paged,split,many,peaks > $res/memcheck-pair90.log 2>&1 &
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 4
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
