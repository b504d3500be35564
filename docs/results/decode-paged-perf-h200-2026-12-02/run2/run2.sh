#!/usr/bin/env bash
# H4's second GPU run (thirteenth session, issue 17): the decode table with
# three builds of the paged kernel's block-table window timed in the same
# rounds as main's bundles ([baseline]): bundles/pro-sm90a (the window
# serves the prologue's lookups, the loop looks pages up in global memory one
# tile ahead as main does), [win] (the window serves every lookup, run 1's
# build), [jit] (the window serves every lookup, made when a tile is issued,
# no lookahead); then the full decode checks of pro-sm90a and pro-sm80, the
# planted table-row bug, memcheck and racecheck on both, side by side.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h4res; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/build/lib/libflash_runtime.so
t0=$(date +%s)
pack() { tar czf $OUT/h4-results2.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench ($(date -u +%T))"
timeout ${BENCH_LIMIT:-120} $py -m flash_mlir.tools.decode_bench --bundles $here/bundles/pro-sm90a \
  --baseline-bundles $here/bundles/base-sm90a --variant win=$here/bundles/win \
  --variant jit=$here/bundles/jit --json $res/bench.json > $res/bench.log 2>&1
echo "=== bench rc=$? in $(( $(date +%s) - t0 ))s"; pack
c=${CHECK_LIMIT:-150}
for a in sm90a sm80; do
  timeout $c $py -m flash_mlir.tools.decode_check --bundles $here/bundles/pro-$a \
    --json $res/check-$a.json > $res/check-$a.log 2>&1 &
  timeout $c $py -m flash_mlir.tools.decode_check --bundles $here/bundles/pro-$a --quick \
    --plant table-row --only paged,many > $res/planted-$a.log 2>&1 &
  for tool in memcheck racecheck; do
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool $tool \
      --kernel-name kns=flash_decode --error-exitcode 9 \
      $py -m flash_mlir.tools.decode_check --bundles $here/bundles/pro-$a --small \
      --only paged,split,many > $res/$tool-$a.log 2>&1 &
  done
done
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 4
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
