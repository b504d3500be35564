#!/usr/bin/env bash
# Lead's H200 run 1, twenty-fifth session: issue 16 backward table (9 rounds), D = 128 non-causal 1k-4k twice (15 rounds, two processes), forward + backward.
# b90 = main 0d551f7's bf16 sm_90a forward and backward bundles (PTX cmp-identical to a fresh compile).
# b90: python3 -m flash_mlir.compile --out b90 --arch sm_90a --dtypes bf16 --head-dims 64,128,256 --ops forward,backward --deterministic no
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
t0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; cp "$O/steps.txt" "$OUT/" 2>/dev/null; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'; } > "$O/env.txt" 2>&1
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"; save; }
GC="python3 -m flash_mlir.gpu_check --mode backward"
SAN="$GC --bundles chk --dtypes bf16 --head-dims 64,128 --causal both --shape 1,4,2,300,270 --shape 2,40,40,300,300 --repeat 0 --deterministic no"
step bench-bwd 200 python3 -m flash_mlir.bench --mode backward --bundles $S/b90 --head-dims 64,128,256 --seqlens 512,1024,2048,4096,8192,16384 --rounds 9 --rep-ms 30 --json $O/bench-bwd.json
step nc-a 90 python3 -m flash_mlir.bench --mode backward --bundles $S/b90 --head-dims 128 --causal no --seqlens 1024,2048,4096 --rounds 15 --rep-ms 30 --json $O/nc-a.json
step nc-b 90 python3 -m flash_mlir.bench --mode backward --bundles $S/b90 --head-dims 128 --causal no --seqlens 1024,2048,4096 --rounds 15 --rep-ms 30 --json $O/nc-b.json
step bench-train 80 python3 -m flash_mlir.bench --mode train --bundles $S/b90 --head-dims 64,128,256 --seqlens 2048,8192 --rounds 5 --rep-ms 30 --json $O/bench-train.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
