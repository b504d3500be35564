#!/usr/bin/env bash
# Lead's H200 run 2, twenty-eighth session (issue 17, item 5): hx = the split kernels' grid
# with the kv-heads' row tiles on x and the parts on y (FLASH_DECODE_HEADSX=1 at compile
# time), so the blocks of one part of every kv-head of a sequence are launched together and
# read the same pages (GQA 32/8: a page holds all 8 heads); main = main 26cc152's bf16
# D = 128 sm_90a decode bundles. hxfull: every dtype and head dimension, for decode_check.
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
step ab-a 150 $DB --bundles $S/main --variant hx=$S/hx --page-order shuffled,local --json $O/ab-a.json
step check90 150 $DC --bundles $S/hxfull --json $O/check90.json
step ab-b 150 $DB --bundles $S/hx --variant main=$S/main --page-order shuffled,local --json $O/ab-b.json
PYTORCH_NO_CUDA_MEMORY_CACHING=1 step memcheck 90 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode --error-exitcode 9 $DC --bundles $S/hxfull --small --only paged,split,many
step cold-a 150 $DB --cold --bundles $S/main --variant hx=$S/hx --json $O/cold-a.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
