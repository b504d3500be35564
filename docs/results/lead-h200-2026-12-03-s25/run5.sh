#!/usr/bin/env bash
# Lead's H200 run 5, twenty-fifth session: issue 16's backward table (36 rows) twice more, two
# processes of 9 rounds, main 0d551f7's bundles (b90, as in run 1), and the board's clocks.
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
export PYTHONPATH=$S/python FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; cp "$O/steps.txt" "$OUT/" 2>/dev/null; }
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"; save; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'; } > $O/env.txt 2>&1
nvidia-smi dmon -s pc -d 1 -o T > $O/dmon.txt 2>&1 & DMON=$!
B="python3 -m flash_mlir.bench --mode backward --bundles b90 --head-dims 64,128,256 --seqlens 512,1024,2048,4096,8192,16384 --rounds 9 --rep-ms 25"
step bwd-a 200 $B --json $O/bwd-a.json
step bwd-b 200 $B --json $O/bwd-b.json
kill $DMON 2>/dev/null
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
