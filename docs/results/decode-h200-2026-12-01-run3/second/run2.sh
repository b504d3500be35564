#!/usr/bin/env bash
# H3's second GPU run: the serving loop, host time (this branch against main,
# interleaved processes), the split-count A/B (floor vs ceil `wanted`), and
# the floor bundles' decode checks; every step under a deadline.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h3res; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1
budget=${BUDGET:-175}
t0=$(date +%s)
left() { echo $(( budget - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/h3-results2.tgz -C $res . 2>/dev/null; }
lim() { local want=$1 l; l=$(left); [ $l -lt $want ] && want=$l; [ $want -lt 5 ] && want=0; echo $want; }
step() {
  local name=$1 want=$2; shift 2; local t; t=$(lim $want)
  if [ "$t" -le 0 ]; then echo "=== $name SKIPPED (no time left)"; return 0; fi
  echo "=== $name (limit ${t}s, $(left)s left)"
  local s=$(date +%s)
  timeout "$t" "$@" > "$res/$name.log" 2>&1; local rc=$?
  echo "=== $name rc=$rc in $(( $(date +%s) - s ))s"; tail -n 14 "$res/$name.log"; pack
}
new="env PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/build/lib/libflash_runtime.so"
old="env PYTHONPATH=$here/base/python FLASH_RUNTIME_LIB=$here/base/libflash_runtime.so"
ht=$here/scripts/bench/decode-host-time.py
{
step serve 45 $new python3 $here/scripts/gpu/serve-check.py --bundles $here/bundles/sm90a --json $res/serve.json
step host-new-1 25 $new python3 $ht $here/bundles/sm90a --label new --json $res/host-new-1.json
step host-main-1 25 $old python3 $ht $here/bundles/sm90a --label main --json $res/host-main-1.json
step bench-floor 45 $new python3 -m flash_mlir.tools.decode_bench --bundles $here/bundles/floor-sm90a --baseline-bundles $here/bundles/sm90a --rows 1x8192,1x32768,8x32768,64x1024,64x8192,128x2048 --json $res/bench-floor.json
step check-floor-sm90a 35 $new python3 -m flash_mlir.tools.decode_check --bundles $here/bundles/floor-sm90a --quick --json $res/check-floor-sm90a.json
step check-floor-sm80 30 $new python3 -m flash_mlir.tools.decode_check --bundles $here/bundles/floor-sm80 --quick --json $res/check-floor-sm80.json
step bench-m64 25 $new python3 -m flash_mlir.tools.decode_bench --bundles $here/bundles/floor64-sm90a --baseline-bundles $here/bundles/floor-sm90a --gqa 8/1 --rows 1x32768,1x131072 --json $res/bench-m64.json
step host-new-2 20 $new python3 $ht $here/bundles/sm90a --label new --json $res/host-new-2.json
step host-main-2 20 $old python3 $ht $here/bundles/sm90a --label main --json $res/host-main-2.json
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
