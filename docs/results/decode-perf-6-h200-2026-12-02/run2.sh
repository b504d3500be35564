#!/usr/bin/env bash
# hC (sixteenth session, issue 17), second run: what the merge's 3.4 us are.
# bench: ours = cg90 (the merge's partials read with ld.global.cg instead of
# ld.volatile), [baseline] = base90 (main), variants [b4], [b8] (merge batches
# of 4 / 8 parts instead of 16: smaller unrolled code, more round trips) and
# [nomerge] (timing only, wrong output); then side by side: decode_check cg90
# (sm_90a, full), cg80 (sm_80's sm_90 cubins, --quick), b890 (sm_90a, full),
# memcheck cg90, the planted cg bug (plantcg90: the LSE read one row further;
# must fail).
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/hCres; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/bundles; tar xzf $here/bundles2.tgz -C $here/bundles
B=$here/bundles
pack() { tar czf $OUT/hC-results2.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench ($(date -u +%T))"
timeout ${BENCH_LIMIT:-30} $py -m flash_mlir.tools.decode_bench --bundles $B/cg90 \
  --baseline-bundles $B/base90 --variant b4=$B/b4bench90 --variant b8=$B/b8bench90 \
  --variant nomerge=$B/nomerge90 --gqa 8/1,32/8 \
  --rows 1x8192,1x32768,1x131072,64x1024 --rounds 3 \
  --json $res/bench2.json > $res/bench2.log 2>&1
echo "=== bench rc=$? in $(( $(date +%s) - t0 ))s"; pack
c=${CHECK_LIMIT:-55}
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/cg90 --json $res/check-cg90.json > $res/check-cg90.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/cg80 --quick --json $res/check-cg80.json > $res/check-cg80.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/b890 --json $res/check-b890.json > $res/check-b890.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/plantcg90 --only split,many,peaks > $res/planted-cg90.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool memcheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/cg90 --small \
  --only paged,split,many,peaks > $res/memcheck-cg90.log 2>&1 &
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 4
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary2.log
pack
