#!/usr/bin/env bash
# H2 (nineteenth session, issue 17 item 5, branch decode-long-9), run 3 --
# STAGED, NOT RUN (this helper's two runs were used for runs 1 and 2): the
# merge-address candidate (commit named in docs/benchmarks.md) against main's
# decode bundles in the same interleaved rounds, then its checks side by side.
# Staged by stage3.sh as build/decode-long-9-run3/ (this script, python/, lib/,
# bundles/). Lead: `run` with carry ["build/decode-long-9-run3"] and command
# `bash build/decode-long-9-run3/run3.sh` (about 90-120 s of commands).
#   main90  = main f4eef72's bf16 D=128 decode bundles (/work/baseline-new/sm90a-dec)
#   cand90  = the candidate, every sm_90a decode plan (sm_90a cubins)
#   cand80  = the candidate, every sm_80 decode plan (sm_90 cubins)
#   plant90 = the candidate with a planted bug (each part's LSE read one row
#             further): the checks must fail
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h2res3; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
B=$here/bundles
pack() { tar czf $OUT/res.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench ($(date -u +%T))"
timeout 90 $py -m flash_mlir.tools.decode_bench --bundles $B/cand90 --variant main=$B/main90 \
  --gqa 8/1,32/8 --rows 1x8192,1x32768,1x131072,64x1024,128x2048,8x32768 --rounds 3 \
  --json $res/bench3.json > $res/bench3.log 2>&1
echo "=== bench rc=$? at $(( $(date +%s) - t0 ))s"; pack
c=150
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/cand90 --json $res/check-cand90.json > $res/check-cand90.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/cand80 --quick --json $res/check-cand80.json > $res/check-cand80.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/plant90 --only split,many,peaks > $res/planted-plant90.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool memcheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/cand90 --small \
  --only paged,split,many,peaks > $res/memcheck-cand90.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool racecheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/cand90 --small \
  --only paged,many > $res/racecheck-cand90.log 2>&1 &
wait
grep -E "^  (split_kv|paged S=16|SDPA cuDNN)|^GQA|ceiling" $res/bench3.log
for f in $res/check-*.log $res/planted-*.log $res/memcheck-*.log $res/racecheck-*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 4
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary3.log
pack
