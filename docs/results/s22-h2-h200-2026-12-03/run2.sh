#!/usr/bin/env bash
# H2 (twenty-second session), run 2: the bench's first slot. main's own bundle as
# --bundles (mainb90, a byte-identical copy of the baseline main90), the separate-kernel
# candidate (sep90) and run 1's cand (cand90) as variants. Staged by stage2.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h2res2; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/b; tar xzf $here/bundles.tgz -C $here/b
B=$here/b
pack() { tar czf $OUT/res.tgz -C $res . 2>/dev/null; }
py=python3
V="--variant sep=$B/sep90 --variant cand=$B/cand90"
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench A, 32/8 bandwidth rows ($(date -u +%T))"
timeout 50 $py -m flash_mlir.tools.decode_bench --bundles $B/mainb90 \
  --baseline-bundles $B/main90 $V --gqa 32/8 --rows 64x1024,128x2048,8x32768 --rounds 7 \
  --json $res/benchA.json > $res/benchA.log 2>&1
echo "=== bench A rc=$? at $(( $(date +%s) - t0 ))s"; pack
echo "=== bench B, latency rows ($(date -u +%T))"
timeout 30 $py -m flash_mlir.tools.decode_bench --bundles $B/mainb90 \
  --baseline-bundles $B/main90 $V --gqa 8/1,32/8 --rows 1x8192,1x32768 --rounds 7 \
  --json $res/benchB.json > $res/benchB.log 2>&1
echo "=== bench B rc=$? at $(( $(date +%s) - t0 ))s"
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
