#!/usr/bin/env bash
# Lead s25: the sm_90a backward's dQ accumulator kept zero between calls (D = 64 and 128 atomic plans).
# bench = candidate (default) + main 0d551f7's plans as variant "main"; chk = all 24 sm_90a backward
# plans of the candidate; plantA = the convert zeroes rows past Nq too; plantB = it zeroes nothing.
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
GC="python3 -m flash_mlir.gpu_check --mode backward"
step smoke 40 $GC --bundles chk --dtypes bf16 --head-dims 128 --causal no --deterministic no --repeat 0 --shape 2,40,40,300,300
grep -q "^smoke rc=0" "$O/steps.txt" || { echo "smoke failed: stop" | tee -a "$O/steps.txt"; save; exit 1; }
step check 90 $GC --bundles chk --deterministic both --repeat 3 --graph --seed 2531 --json $O/check.json
MW="--shape 1,8,2,4096,4096 --shape 1,8,2,4097,4097 --shape 2,8,4,4000,4500 --shape 2,8,8,300,5000 --shape 4,16,8,1000,1000 --shape 8,32,32,1024,1024"
step check-mw 70 $GC --bundles chk --head-dims 64,128,256 --causal both --deterministic no --repeat 1 --seed 2532 $MW
step plantA 40 $GC --bundles plantA --dtypes bf16 --causal no --deterministic no --repeat 0 --seed 2533 $MW
step plantB 40 $GC --bundles plantB --dtypes bf16 --causal no --deterministic no --repeat 0 --seed 2534 $MW
SAN="$GC --bundles chk --dtypes bf16 --head-dims 64,128 --causal both --shape 1,4,2,300,270 --shape 2,8,8,300,900 --repeat 0 --deterministic no"
step memcheck 90 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool memcheck --kernel-name kns=flash_bwd --error-exitcode 3 $SAN
grep -E "ERROR SUMMARY" "$O/memcheck.log" | tee -a "$O/steps.txt"
B="python3 -m flash_mlir.bench --mode backward --bundles bench --head-dims 64,128 --seqlens 512,1024,2048,4096,8192,16384 --rep-ms 25 --variants"
step bench1 150 $B --rounds 9 --json $O/bench1.json
step bench2 150 $B --rounds 9 --json $O/bench2.json
step train 90 python3 -m flash_mlir.bench --mode train --bundles bench --head-dims 64,128 --seqlens 1024,2048,8192 --rounds 5 --rep-ms 25 --json $O/train.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
