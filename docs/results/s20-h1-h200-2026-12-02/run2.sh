#!/bin/bash
# Second H200 run of branch s20-h1 (staged by stage2.sh).
ST=build/s20-h1-run
export PYTHONPATH=$ST/python FLASH_RUNTIME_LIB=$ST/lib/libflash_runtime.so
T=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv > $T/gpu.txt 2>&1
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $T/$name.log 2>&1; echo "$name rc=$? $(( $(date +%s) - t0 )) s" | tee -a $T/steps.txt; tar czf $OUT/res.tgz -C $T .; }
step check 90 python3 -m flash_mlir.gpu_check --mode backward --bundles $ST/ours --head-dims 128 --deterministic both --repeat 2 --seed 2021 --json $T/check.json
step memcheck 60 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m flash_mlir.gpu_check --mode backward --bundles $ST/ours --dtypes bf16 --head-dims 128 --deterministic no --quick
step racecheck 60 compute-sanitizer --tool racecheck --error-exitcode 9 python3 -m flash_mlir.gpu_check --mode backward --bundles $ST/ours --dtypes bf16 --head-dims 128 --deterministic no --causal yes --shape 1,2,1,200,200
step bench 120 python3 -m flash_mlir.bench --mode backward --bundles $ST/bench --head-dims 128 --seqlens 512,1024,2048,8192 --rounds 3 --rep-ms 30 --variants --json $T/bench.json
tar czf $OUT/res.tgz -C $T .
cat $T/steps.txt
