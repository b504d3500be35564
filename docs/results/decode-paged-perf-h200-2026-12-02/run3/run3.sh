#!/usr/bin/env bash
# The decode checks of the shipped paged kernels (block-table window, looked
# up when a tile is issued) that runs 1 and 2 did not cover: the full checks
# on sm_90a and sm_80 (its sm_90 cubins), the planted table-row bug, memcheck
# and racecheck, side by side (about 70 s on the H200). Layout: python/,
# build/lib/libflash_runtime.so, bundles/{sm90a,sm80} compiled with this
# branch's flash-opt:
#   python3 -m flash_mlir.compile --out bundles/sm90a --arch sm_90a --ops split_kv,paged
#   python3 -m flash_mlir.compile --out bundles/sm80 --arch sm_80 --cubin-archs sm_80,sm_90 --ops split_kv,paged
# Writes h4-results3.tgz into $OUT.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h4res3; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/build/lib/libflash_runtime.so
t0=$(date +%s)
py=python3
{
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
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 4
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
tar czf ${OUT:-.}/h4-results3.tgz -C $res .
