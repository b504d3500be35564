#!/usr/bin/env bash
# Lead's H200 run 3, twenty-seventh session (issue 17, item 5): where run 2's paged slowdown comes from.
# new90 = branch s27-strided (round-robin parts, first tile's entries loaded with seq_lens, window by local tile);
# nospec = the same with the first tile's entries loaded after the split (FLASH_DECODE_EXP=nospec, temporary switch);
# ranges = the same kernel form with main's consecutive ranges (FLASH_DECODE_EXP=ranges; implies nospec);
# dec90 = main 26cc152. All: python3 -m flash_mlir.compile --out X --arch sm_90a --ops split_kv,paged --dtypes bf16 --head-dims 128
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
t0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; cp "$O/steps.txt" "$OUT/" 2>/dev/null; }
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"; save; }
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 100 $DB --bundles $S/dec90 --variant new=$S/new90 --variant nospec=$S/nospec --variant ranges=$S/ranges --json $O/a.json
step b 100 $DB --bundles $S/ranges --variant main=$S/dec90 --variant nospec=$S/nospec --variant new=$S/new90 --json $O/b.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
