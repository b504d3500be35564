#!/usr/bin/env bash
# H4's GPU run (thirteenth session, issue 17): the decode table with the
# paged kernel's block-table window (bundles/sm90a), main's bundles
# (bundles/base-sm90a: [baseline]) and three diagnostic builds of the paged
# kernel timed in the same rounds ([nolen]: no seq_lens load, the length
# from M·S; [notable]: no block-table load, page = key / S; [nolen-notable]:
# neither), then the full decode checks of the sm_90a and sm_80 bundles, the
# planted table-row bug on both, memcheck and racecheck on both, side by side.
# Layout (staged on the build machine): python/, build/lib/libflash_runtime.so,
# bundles/{sm90a,sm80,base-sm90a,nolen,notable,nolen-notable}.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h4res; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/build/lib/libflash_runtime.so
t0=$(date +%s)
pack() { tar czf $OUT/h4-results.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
$py -c "import torch; print('torch', torch.__version__, torch.version.cuda)"
echo "=== bench ($(date -u +%T))"
timeout ${BENCH_LIMIT:-150} $py -m flash_mlir.tools.decode_bench --bundles $here/bundles/sm90a \
  --baseline-bundles $here/bundles/base-sm90a --variant nolen=$here/bundles/nolen \
  --variant notable=$here/bundles/notable --variant nolen-notable=$here/bundles/nolen-notable \
  --json $res/bench.json > $res/bench.log 2>&1
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
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 8
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
