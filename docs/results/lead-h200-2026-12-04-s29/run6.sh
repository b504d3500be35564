#!/usr/bin/env bash
# Lead's H200 run 6, twenty-ninth session (issue 17, item 5): carry (FLASH_DECODE_EXP=carry):
# a paged loop iteration looks up the rows of the tile the next iteration issues after its
# own copies and carries them in registers, so that no window lookup lies between a tile's
# wait and the next copies. Run 6: carry2, the first iteration's rows looked up in the
# window after the prologue's barrier (run 5's carry loaded them from the table before the
# Q copy, which then waited for them). Against main's bf16 D = 128 sm_90a bundles.
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
t0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; cp "$O/steps.txt" "$OUT/" 2>/dev/null; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'; } > "$O/env.txt" 2>&1
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"; save; }
DC="python3 -m flash_mlir.tools.decode_check"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step ab-a 170 $DB --bundles $S/main --variant carry2=$S/carry2 --json $O/ab-a.json
step ab-b 170 $DB --bundles $S/carry2 --variant main=$S/main --json $O/ab-b.json
step seq-a 170 $DB --bundles $S/main --variant carry2=$S/carry2 --page-order sequential --json $O/seq-a.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
