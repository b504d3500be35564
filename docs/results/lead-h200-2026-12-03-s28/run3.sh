#!/usr/bin/env bash
# Lead's H200 run 3, twenty-eighth session (issue 17, item 5): the separate merge's split
# kernel (calls of at most 8 work units: GQA 8/1 B = 1 and B = 8, GQA 32/8 B = 1) with a part
# count aimed at one block an SM (FLASH_DECODE_SEP_HALF: SMs read as ceil(SMs / 2) by that
# kernel, the merge kernel and its grid) and 3 (h), 4 (s4h) or 6 (s6h) stages
# (FLASH_DECODE_SEP_STAGES); main0 = main's bf16 D = 128 sm_90a decode bundles.
# s4hfull / s6hfull: every dtype and head dimension (D = 256 keeps fewer stages), for decode_check.
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
step ab-a 150 $DB --bundles $S/main0 --variant h=$S/h --variant s4h=$S/s4h --variant s6h=$S/s6h --json $O/ab-a.json
step check-s6h 150 $DC --bundles $S/s6hfull --json $O/check-s6h.json
step ab-b 150 $DB --bundles $S/s6h --variant main=$S/main0 --variant h=$S/h --variant s4h=$S/s4h --json $O/ab-b.json
step check-s4h 150 $DC --bundles $S/s4hfull --json $O/check-s4h.json
PYTORCH_NO_CUDA_MEMORY_CACHING=1 step memcheck 90 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode --error-exitcode 9 $DC --bundles $S/s6hfull --small --only paged,split,many
step cold-a 150 $DB --cold --bundles $S/main0 --variant h=$S/h --variant s4h=$S/s4h --variant s6h=$S/s6h --json $O/cold-a.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
