#!/usr/bin/env bash
# H1 (twenty-first session, issue 17 item 5): the decode tail — the split kernels'
# warp combine spread over the four warps (pc), the separate merge's batch (mb8,
# mb16), L2 prefetch hints on the K/V copies (l2, l2b128), one block an SM with 6
# stages (t1s6), against main's bundles and SDPA cuDNN / FA2. See stage.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h1res; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/b; tar xzf $here/bundles.tgz -C $here/b
B=$here/b
pack() { tar czf $OUT/res.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench ($(date -u +%T))"
timeout ${B1_LIMIT:-150} $py -m flash_mlir.tools.decode_bench --bundles $B/pcmb8 \
  --baseline-bundles $B/main --variant pc=$B/pc --variant mb8=$B/mb8 --variant mb16=$B/mb16 \
  --variant l2=$B/l2 --variant l2b128=$B/l2b128 --variant t1s6=$B/t1s6 \
  --gqa 8/1,32/8 --rows 1x8192,1x32768,1x131072,8x32768,64x1024,128x2048 \
  --rounds 5 --json $res/bench.json > $res/bench.log 2>&1
echo "=== bench rc=$? in $(( $(date +%s) - t0 ))s"; pack
c=${CHECK_LIMIT:-100}
for v in pc mb8 mb16 pcmb8; do
  timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/$v --json $res/check-$v.json > $res/check-$v.log 2>&1 &
done
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/pcmb8_80 --quick --json $res/check-pcmb8_80.json > $res/check-pcmb8_80.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/pcplant --only paged,split,many > $res/planted-pcplant.log 2>&1 &
timeout $c $py -m flash_mlir.tools.decode_check --bundles $B/mbplant --only many,peaks > $res/planted-mbplant.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool memcheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/pcmb8 --small \
  --only paged,split,many,peaks > $res/memcheck-pcmb8.log 2>&1 &
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool racecheck \
  --kernel-name kns=flash_decode --error-exitcode 9 \
  $py -m flash_mlir.tools.decode_check --bundles $B/pcmb8 --small \
  --only paged,split,many > $res/racecheck-pcmb8.log 2>&1 &
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 6
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
