#!/usr/bin/env bash
# H3 (s23) H200 run (stage.sh says what each directory holds). In this order:
#   the candidate's smoke test (stops the run if it hangs or fails), the interleaved bench
#   (conv = flash_mlir, main ffd6bf8 = flash_mlir_main, SDPA FA2/cuDNN, 7 rounds), the full check,
#   the multi-wave check, the planted bugs, memcheck                       [MIN=1 stops here: ~110 s]
#   then the per-kernel profile (kprof.py: main, conv, cuDNN) and the waves test, racecheck,
#   N = 8k/16k, forward + backward                                         [all: ~230 s of commands]
# Every step has a limit. Usage: bash build/s23-h3-run/run.sh   (or MIN=1 bash ...)
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=$(mktemp -d); export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
save() { tar czf "${OUT:-$here}/res.tgz" -C "$O" .; }
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"; save; }
finish() { echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save; }
trap finish EXIT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'
  echo "which: $(which nsys ncu 2>&1 | tr '\n' ' ')"; } > "$O/env.txt" 2>&1
GC="python3 -m flash_mlir.gpu_check --mode backward"
MW="--shape 4,16,8,1000,1000 --shape 2,40,40,300,300 --shape 8,32,32,1024,1024"
step smoke 30 $GC --bundles chk --dtypes bf16 --head-dims 128 --causal no --deterministic no --repeat 0 --shape 2,40,40,300,300
grep -q "^smoke rc=0" "$O/steps.txt" || { echo "smoke failed: stop" | tee -a "$O/steps.txt"; exit 1; }
step bench 100 python3 -m flash_mlir.bench --mode backward --bundles bench --head-dims 128,64 --seqlens 512,1024,2048,4096 --rounds 7 --rep-ms 25 --variants --json $O/bench.json
grep ^backward "$O/bench.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
step check 45 $GC --bundles chk --deterministic both --repeat 3 --graph --seed 2301 --json $O/check.json
step check-mw 45 $GC --bundles chk --dtypes bf16 --head-dims 64,128 --deterministic no --repeat 0 --seed 2302 $MW
step plant1 30 $GC --bundles plant1 --dtypes bf16 --deterministic no --repeat 0 --seed 2303
step plant1-mw 30 $GC --bundles plant1 --dtypes bf16 --deterministic no --repeat 0 --seed 2304 $MW
step plant2 30 $GC --bundles plant2 --dtypes bf16 --deterministic no --repeat 0 --seed 2305
SAN="$GC --bundles chk --dtypes bf16 --head-dims 64,128 --causal both --shape 1,4,2,300,270 --shape 2,40,40,300,300 --repeat 0 --deterministic no"
step memcheck 60 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool memcheck --kernel-name kns=flash_bwd --error-exitcode 3 $SAN
grep -E "ERROR SUMMARY" "$O/memcheck.log" | tee -a "$O/steps.txt"
[ "${MIN:-0}" = 1 ] && exit 0
step prof 100 env KPROF_JSON=$O/prof.json WAVES=128:1024:16:16,128:1024:8:33,64:1024:16:32,64:1024:16:33 \
  python3 kprof.py 7 10 main=$here/pm conv=$here/pc
step racecheck 60 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool racecheck --kernel-name kns=flash_bwd --error-exitcode 3 $SAN
grep -E "RACECHECK SUMMARY" "$O/racecheck.log" | tee -a "$O/steps.txt"
step bench-long 60 python3 -m flash_mlir.bench --mode backward --bundles bench --head-dims 128,64 --seqlens 8192,16384 --rounds 3 --rep-ms 25 --variants --json $O/bench-long.json
grep ^backward "$O/bench-long.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
step train-conv 40 python3 -m flash_mlir.bench --mode train --bundles pc --head-dims 128,64 --seqlens 2048 --rounds 5 --rep-ms 25 --json $O/train-conv.json
step train-main 40 python3 -m flash_mlir.bench --mode train --bundles pm --head-dims 128,64 --seqlens 2048 --rounds 5 --rep-ms 25 --json $O/train-main.json
grep ^train "$O/train-conv.log" "$O/train-main.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
