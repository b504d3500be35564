#!/usr/bin/env bash
# Lead's H200 run 5, twenty-eighth session: the checks of max_splits = 128 (the shipped change)
# on sm_80 (new80: --arch sm_80 --cubin-archs sm_80,sm_90, every dtype and head dimension) and
# memcheck of the sm_90a bundles (ms128full = run 4's, PTX cmp-identical to main's compile).
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
t0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; cp "$O/steps.txt" "$OUT/" 2>/dev/null; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader; } > "$O/env.txt" 2>&1
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"; save; }
DC="python3 -m flash_mlir.tools.decode_check"
step check80 150 $DC --bundles $S/new80 --quick --json $O/check80.json
PYTORCH_NO_CUDA_MEMORY_CACHING=1 step memcheck 90 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode --error-exitcode 9 $DC --bundles $S/ms128full --small --only paged,split,many
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
