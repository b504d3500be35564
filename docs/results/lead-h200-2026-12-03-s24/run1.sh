#!/usr/bin/env bash
# Lead's H200 run 1, twenty-fourth session (one call), on main fbeba68 (code cdfc776):
# 1) the shipped convert overlap's remaining checks: racecheck (its kernels, bf16 D 64/128,
#    causal both; chk = the GPU-checked bundles, cmp-identical to b90's), the per-kernel profile
#    (ours b90 against SDPA cuDNN, D128 N 1k/2k/4k and D64 1k, non-causal);
# 2) issue 16's backward (36 rows) and forward + backward (12 rows) tables on main.
# kprof.py: docs/results/s23-h3-h200-2026-12-03/kprof.py, copied into the staged directory.
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
step racecheck 70 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool racecheck --kernel-name kns=flash_bwd --error-exitcode 3 $SAN
grep -E "RACECHECK SUMMARY" "$O/racecheck.log" | tee -a "$O/steps.txt"
step bench-bwd 160 python3 -m flash_mlir.bench --mode backward --bundles $S/b90 --head-dims 64,128,256 --seqlens 512,1024,2048,4096,8192,16384 --rounds 5 --rep-ms 30 --json $O/bench-bwd.json
step bench-train 80 python3 -m flash_mlir.bench --mode train --bundles $S/b90 --head-dims 64,128,256 --seqlens 2048,8192 --rounds 3 --rep-ms 30 --json $O/bench-train.json
step prof 100 env KPROF_JSON=$O/prof.json WAVES= ROWS=128:1024:0,128:2048:0,128:4096:0,64:1024:0 python3 kprof.py 5 10 ours=$S/b90
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
