#!/usr/bin/env bash
# Lead's H200 run 9, twenty-ninth session (issue 17, item 5): does the paged separate
# kernel's code size cost the short rows? fastonly (FLASH_DECODE_EXP=fastonly): every tile
# taken as full with S = 2^k >= 16, so the separate kernel has no other copy path (33,280
# bytes of SASS against main's 51,328; the contiguous one's 34,944). Right only for such
# calls: the rows below (lengths multiples of 64, S = 16 and 64). Its split-KV plans are main's.
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
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5 --rows 1x8192,1x32768,1x131072,8x32768 --page-order shuffled,sequential"
step a 120 $DB --bundles $S/main --variant fastonly=$S/fastonly --json $O/a.json
step b 120 $DB --bundles $S/fastonly --variant main=$S/main --json $O/b.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
