#!/usr/bin/env bash
# Lead's H200 run 2, twenty-seventh session (issue 17, item 5): split-KV parts dealt round robin
# (part s visits tiles s, s + n, ...), so the paged kernel loads its first tile's block-table
# entries together with seq_lens[b]; the block-table window indexed by local tile (run 1 loaded
# entries an iteration ahead into registers: 1.05-1.23x slower paged; branch `strided`).
# new90: python3 -m flash_mlir.compile --out new90 --arch sm_90a --ops split_kv,paged
# new80: python3 -m flash_mlir.compile --out new80 --arch sm_80 --cubin-archs sm_80,sm_90 --ops split_kv,paged
# dec90: main 26cc152's bf16 D = 128 sm_90a decode bundles
# plantA: first tile entries for tile part + 1; plantB: window entries of local tile j + 1: both must fail
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
step warm-a 80 $DB --bundles $S/new90 --variant main=$S/dec90 --json $O/warm-a.json
step check90 150 $DC --bundles $S/new90 --json $O/check90.json
step warm-b 80 $DB --bundles $S/dec90 --variant new=$S/new90 --json $O/warm-b.json
step check80 120 $DC --bundles $S/new80 --quick --json $O/check80.json
step plantA 60 $DC --bundles $S/plantA --quick --json $O/plantA.json
step plantB 60 $DC --bundles $S/plantB --quick --json $O/plantB.json
PYTORCH_NO_CUDA_MEMORY_CACHING=1 step memcheck 90 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode --error-exitcode 9 $DC --bundles $S/new90 --small --only paged,split,many
step cold-a 90 $DB --cold --bundles $S/new90 --variant main=$S/dec90 --json $O/cold-a.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
