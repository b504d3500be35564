#!/usr/bin/env bash
# Lead's H200 run 5, twenty-sixth session (issue 17, item 5): the grouped paged start and copy form
# (16-key page lookups, plain copies of full tiles, the prologue's table loads before the window's) in the
# fused-merge paged split kernel too (temporary switch FLASH_DECODE_GROUPED_EXP=1, not on main; until now
# only the separate merge's split kernel had it). main90 = main 7a19741 bf16 D=128 decode bundles.
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
t0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; cp "$O/steps.txt" "$OUT/" 2>/dev/null; }
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"; save; }
DC="python3 -m flash_mlir.tools.decode_check"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5 --host-calls 20"
step warm-a 70 $DB --bundles $S/grp90 --variant main=$S/main90 --json $O/warm-a.json
step warm-b 70 $DB --bundles $S/main90 --variant grp=$S/grp90 --json $O/warm-b.json
step cold-a 90 $DB --cold --bundles $S/grp90 --variant main=$S/main90 --json $O/cold-a.json
step check90 150 $DC --bundles $S/grp90 --json $O/check90.json
step check80 120 $DC --bundles $S/grp80 --quick --only paged --json $O/check80.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
