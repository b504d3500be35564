#!/usr/bin/env bash
# H3's GPU run: decode checks (sm_90a, sm_80 bundles built from the ops), the
# serving loop, the decode benchmark table, host time against main's runtime,
# sanitizers; every step under a deadline, results packed into $OUT.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h3res; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1
budget=${BUDGET:-280}
t0=$(date +%s)
left() { echo $(( budget - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/h3-results.tgz -C $res . 2>/dev/null; }
lim() { local want=$1 l; l=$(left); [ $l -lt $want ] && want=$l; [ $want -lt 5 ] && want=0; echo $want; }
step() { # name limit cmd...
  local name=$1 want=$2; shift 2; local t; t=$(lim $want)
  if [ "$t" -le 0 ]; then echo "=== $name SKIPPED (no time left)"; return 0; fi
  echo "=== $name (limit ${t}s, $(left)s left)"
  local s=$(date +%s)
  timeout "$t" "$@" > "$res/$name.log" 2>&1; local rc=$?
  echo "=== $name rc=$rc in $(( $(date +%s) - s ))s"; tail -n 6 "$res/$name.log"; pack
}
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/build/lib/libflash_runtime.so
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda)"
step check-sm90a 75 python3 -m flash_mlir.tools.decode_check --bundles $here/bundles/sm90a --json $res/check-sm90a.json
step check-sm80 45 python3 -m flash_mlir.tools.decode_check --bundles $here/bundles/sm80 --quick --json $res/check-sm80.json
step planted 30 python3 -m flash_mlir.tools.decode_check --bundles $here/bundles/sm90a --quick --plant table-row --only paged
step serve 60 python3 $here/scripts/gpu/serve-check.py --bundles $here/bundles/sm90a --json $res/serve.json
step bench 110 python3 -m flash_mlir.tools.decode_bench --bundles $here/bundles/sm90a --json $res/bench.json
step host-main 35 env PYTHONPATH=$here/base/python FLASH_RUNTIME_LIB=$here/base/libflash_runtime.so python3 -m flash_mlir.tools.decode_bench --bundles $here/bundles/sm90a --rows 1x1024 --rounds 1 --json $res/host-main.json
for tool in memcheck racecheck; do
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 step $tool 40 compute-sanitizer --tool $tool --kernel-name kns=flash_decode --error-exitcode 9 python3 -m flash_mlir.tools.decode_check --bundles $here/bundles/sm90a --small --only paged,split
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $res/$tool.log | tail -1
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
