#!/usr/bin/env bash
# Lead's H200 run 3, twenty-sixth session (issue 17, item 5): a deeper K/V ring for calls that run one
# block an SM (one part a work unit, work units <= SMs). Experiment bundles (temporary env switch
# FLASH_DECODE_STAGES_EXP=N in decodeConfigFromDescriptor, not on main), the fused split kernel's grid x
# edited to 1 in sNx1 (valid for one-part calls only: the rows below); s6 keeps main's grid x.
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
t0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; cp "$O/steps.txt" "$OUT/" 2>/dev/null; }
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"; save; }
V="--variant s3x1=$S/s3x1 --variant s4x1=$S/s4x1 --variant s5x1=$S/s5x1 --variant s6x1=$S/s6x1 --variant s6=$S/s6"
for p in a b; do
  step deep81-$p 100 python3 -m flash_mlir.tools.decode_bench --bundles $S/dec90 $V --gqa 8/1 --rows 128x2048,128x8192 --rounds 7 --host-calls 10 --json $O/deep81-$p.json
  step deep328-$p 100 python3 -m flash_mlir.tools.decode_bench --bundles $S/dec90 $V --gqa 32/8 --rows 16x2048,16x8192 --rounds 7 --host-calls 10 --json $O/deep328-$p.json
done
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
