#!/usr/bin/env bash
# H3 (twenty-first session, issue 17 item 5): the paged tile's copy form, one H200 run.
# Staged by stage.sh as build/s21-h2-run/ (this script, python/, lib/, bundles.tgz):
#   main90  = main 55d5f04's sm_90a decode bundles (bf16 D=128; /work/baseline-s21/sm90a)
#   full90, group90, win90 = each change alone (bf16 D=128, no causal, no LSE)
#   cand90  = group + win, sm_90a (bf16/f16, D 64/128/256, all forms)
#   cand80  = the same, sm_80 plans (sm_90 cubins)
#   plant90 = cand90's paged plans + the planted bug gplant
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h3res; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/b; tar xzf $here/bundles.tgz -C $here/b
B=$here/b
pack() { tar czf $OUT/res.tgz -C $res . 2>/dev/null; }
py=python3
rows=1x8192,1x32768,1x131072,64x1024,128x2048,8x32768
V="--variant full=$B/full90 --variant group=$B/group90 --variant win=$B/win90"
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench 1 ($(date -u +%T))"
timeout ${BENCH_LIMIT:-100} $py -m flash_mlir.tools.decode_bench --bundles $B/cand90 \
  --baseline-bundles $B/main90 $V --gqa 8/1,32/8 --rows $rows --rounds 5 \
  --json $res/bench.json > $res/bench.log 2>&1
echo "=== bench 1 rc=$? at $(( $(date +%s) - t0 ))s"; pack
echo "=== bench 2, the gap rows ($(date -u +%T))"
timeout ${BENCH2_LIMIT:-45} $py -m flash_mlir.tools.decode_bench --bundles $B/cand90 \
  --baseline-bundles $B/main90 $V --gqa 8/1 --rows 1x8192,1x32768,64x1024 --rounds 9 \
  --json $res/bench-gap.json > $res/bench-gap.log 2>&1
echo "=== bench 2 rc=$? at $(( $(date +%s) - t0 ))s"; pack
c=${CHECK_LIMIT:-110}
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/cand90 --json $res/check-cand90.json > $res/check-cand90.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/cand80 --quick --json $res/check-cand80.json > $res/check-cand80.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/cand90 --only paged --page-sizes 8,48 --json $res/check-cand90-s8-s48.json > $res/check-cand90-s8-s48.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/plant90 --only paged,many,peaks > $res/planted-gplant.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool memcheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/cand90 --small \
  --only paged,many > $res/memcheck-cand90.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool racecheck \
  --kernel-name kns=flash_decode_paged --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/cand90 --small \
  --only paged > $res/racecheck-cand90.log 2>&1 &
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 6
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
