#!/usr/bin/env bash
# H2 (twenty-second session, issue 17 item 5): the paged start forms on current main.
# Staged by stage.sh as build/s22-h2-run/ (this script, python/, lib/, bundles.tgz):
#   main90/mainb90 = main 4919f12's sm_90a decode bundles (bf16 D=128), two copies
#   sep90   = cand (group+tfirst+pg) in the _separate split kernel only (all sm_90a plans)
#   septp90 = sep90 + the fused kernel with tfirst+pg; sepsh90 = sep90 + the fused kernel
#             with tfirst+pg's order on parts of <= 4 tiles (all sm_90a plans)
#   cand90  = group+tfirst+pg in both split kernels (bf16 D=128)
#   sep80   = sep on the sm_80 plans (sm_90 cubins); plant90 = sep90 + gplant (bf16)
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h2res; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/b; tar xzf $here/bundles.tgz -C $here/b
B=$here/b
pack() { tar czf $OUT/res.tgz -C $res . 2>/dev/null; }
py=python3
rows=1x8192,1x32768,1x131072,64x1024,128x2048,8x32768
V="--variant cand=$B/cand90 --variant septp=$B/septp90 --variant sepsh=$B/sepsh90 --variant mainb=$B/mainb90"
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench 1 ($(date -u +%T))"
timeout ${BENCH_LIMIT:-90} $py -m flash_mlir.tools.decode_bench --bundles $B/sep90 \
  --baseline-bundles $B/main90 $V --gqa 8/1,32/8 --rows $rows --rounds 5 \
  --json $res/bench.json > $res/bench.log 2>&1
echo "=== bench 1 rc=$? at $(( $(date +%s) - t0 ))s"; pack
echo "=== bench 2, the gap rows ($(date -u +%T))"
timeout ${BENCH2_LIMIT:-45} $py -m flash_mlir.tools.decode_bench --bundles $B/sep90 \
  --baseline-bundles $B/main90 $V --gqa 8/1 --rows 1x8192,1x32768,64x1024 --rounds 9 \
  --json $res/bench-gap.json > $res/bench-gap.log 2>&1
echo "=== bench 2 rc=$? at $(( $(date +%s) - t0 ))s"; pack
echo "=== bench 3, the bandwidth rows ($(date -u +%T))"
timeout ${BENCH3_LIMIT:-60} $py -m flash_mlir.tools.decode_bench --bundles $B/sep90 \
  --baseline-bundles $B/main90 $V --gqa 32/8 --rows 64x1024,128x2048,8x32768 --rounds 9 \
  --json $res/bench-bw.json > $res/bench-bw.log 2>&1
echo "=== bench 3 rc=$? at $(( $(date +%s) - t0 ))s"; pack
c=${CHECK_LIMIT:-110}
for v in sep90 septp90 sepsh90; do
  timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/$v --json $res/check-$v.json > $res/check-$v.log 2>&1 &
  timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/$v --only paged --page-sizes 8,48 --json $res/check-$v-s8-s48.json > $res/check-$v-s8-s48.log 2>&1 &
done
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/sep80 --quick --json $res/check-sep80.json > $res/check-sep80.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/plant90 --only paged,many,peaks > $res/planted-gplant.log 2>&1 &
for v in sep90 sepsh90; do
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool memcheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/$v --small \
  --only paged,many > $res/memcheck-$v.log 2>&1 &
done
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool racecheck \
  --kernel-name kns=flash_decode_paged --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/sep90 --small \
  --only paged > $res/racecheck-sep90.log 2>&1 &
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 6
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
