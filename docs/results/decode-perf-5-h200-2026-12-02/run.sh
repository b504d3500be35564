#!/usr/bin/env bash
# hC (fifteenth session, issue 17): the split rule's variants for GQA 8/1.
# One H200 run: the decode table (ours = bundles/min2-sm90a, [baseline] =
# main's bundles (/work/main/build/bin/flash-opt: e8651fd's compiler, unchanged
# at f7f07ef), variants [one6] [nm] [min2nm]; same interleaved rounds, with
# SDPA cuDNN/FA2 and the read ceiling), then side by side: the full decode
# checks on sm_90a and sm_80 (its sm_90 cubins) for the candidate builds,
# memcheck and racecheck (sm_90a), the planted table-row bug (must fail).
# Variants (temporary switch FLASH_DECODE_EXP at compile time, not shipped):
#   min2:   a part visits at least 2 K/V tiles (was 4)
#   nm:     one part when the SM count wants at most 2 parts (no merge)
#   min2nm: both
#   one6:   one block an SM (parts for 1·SMs blocks) and as many K/V stages
#           as fit in a whole SM (6 at D = 128 on sm_90a)
# Writes hC-results.tgz into $OUT.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/hCres; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/build/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/bundles; tar xzf $here/bundles.tgz -C $here/bundles
pack() { tar czf $OUT/hC-results.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench ($(date -u +%T))"
var=""; for v in one6=one6-sm90a nm=nm-bench min2nm=min2nm-sm90a; do
  [ -d $here/bundles/${v#*=} ] && var="$var --variant ${v%%=*}=$here/bundles/${v#*=}"; done
timeout ${BENCH_LIMIT:-85} $py -m flash_mlir.tools.decode_bench --bundles $here/bundles/min2-sm90a \
  --baseline-bundles $here/bundles/base-sm90a $var --json $res/bench.json > $res/bench.log 2>&1
echo "=== bench rc=$? in $(( $(date +%s) - t0 ))s"; pack
c=${CHECK_LIMIT:-100}
for a in min2-sm90a min2-sm80 min2nm-sm90a min2nm-sm80 one6-sm90a; do
  [ -d $here/bundles/$a ] || continue
  timeout $c $py -m flash_mlir.tools.decode_check --bundles $here/bundles/$a \
    --json $res/check-$a.json > $res/check-$a.log 2>&1 &
done
for a in min2-sm90a min2nm-sm90a; do
  [ -d $here/bundles/$a ] || continue
  timeout $c $py -m flash_mlir.tools.decode_check --bundles $here/bundles/$a --quick \
    --plant table-row --only paged,many > $res/planted-$a.log 2>&1 &
done
for at in min2-sm90a:memcheck min2-sm90a:racecheck one6-sm90a:memcheck; do
  a=${at%%:*}; tool=${at#*:}; {
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $c compute-sanitizer --tool $tool \
      --kernel-name kns=flash_decode --error-exitcode 9 \
      $py -m flash_mlir.tools.decode_check --bundles $here/bundles/$a --small \
      --only paged,split,many,peaks > $res/$tool-$a.log 2>&1; } &
done
wait
for f in $res/*.log; do
  echo "=== $(basename $f)"; grep -E "passed|SUMMARY|^FAIL|Error|error" $f | tail -n 4
done
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
