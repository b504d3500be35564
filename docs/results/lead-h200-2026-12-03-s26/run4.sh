#!/usr/bin/env bash
# Lead's H200 run 4, twenty-sixth session (issue 17, item 5): the split-KV grid's x = splitKVMaxSplits
# (the most parts a sequence of the call can have; was the ceiling of 2*SMs/work units, and not 1 for
# calls the rule does not cut). Kernels are main's PTX (cmp: 48/48 sm_90a, 48/48 sm_80); only the plans'
# grids and the partials' workspace sizes changed.
# new90: python3 -m flash_mlir.compile --out new90 --arch sm_90a --ops split_kv,paged
# new80: python3 -m flash_mlir.compile --out new80 --arch sm_80 --cubin-archs sm_80,sm_90 --ops split_kv,paged
# dec90: main's bf16 D = 128 sm_90a decode bundles (--dtypes bf16 --head-dims 128)
# plant90: new90 with every split kernel's grid x = max(x - 1, 1) (one part short): must fail
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
step check90 150 $DC --bundles $S/new90 --json $O/check90.json
step check80 120 $DC --bundles $S/new80 --quick --json $O/check80.json
step plant 60 $DC --bundles $S/plant90 --quick --json $O/plant.json
PYTORCH_NO_CUDA_MEMORY_CACHING=1 step memcheck 90 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode --error-exitcode 9 $DC --bundles $S/new90 --small --only paged,split,many
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step warm-a 70 $DB --bundles $S/new90 --variant main=$S/dec90 --json $O/warm-a.json
step warm-b 70 $DB --bundles $S/dec90 --variant new=$S/new90 --json $O/warm-b.json
step cold-a 90 $DB --cold --bundles $S/new90 --variant main=$S/dec90 --json $O/cold-a.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
