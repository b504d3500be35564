#!/usr/bin/env bash
# H1 (bwd90-d256-9) third H200 run: the role-split D = 256 backward (mbarriers) checked (NaN-poisoned,
# both plans, 10 repeats of the deterministic ones), benchmarked against main's kernel,
# FA2 and cuDNN in the same interleaved rounds, a planted breakage, racecheck + memcheck.
# A step starts only while less than 58 s have passed (the device budget); a hung check
# stops the run. All output is tarred into $OUT/h1-out3.tar.gz.
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=$(mktemp -d); export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  [ $(( s - t0 )) -lt 58 ] || { echo "$name skipped (budget)" | tee -a "$O/steps.txt"; return; }
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"
  tar czf "${OUT:-$here}/h1-out3.tar.gz" -C "$O" .; }
finish() { echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; tar czf "${OUT:-$here}/h1-out3.tar.gz" -C "$O" .; }
trap finish EXIT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > "$O/env.txt" 2>&1
step check256 25 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/r" --head-dims 256 --deterministic both --repeat 10 --seed 1921 --json "$O/check256.json"
grep -q "^check256 rc=124" "$O/steps.txt" && { echo "check hung: stop" | tee -a "$O/steps.txt"; exit 1; }
for tool in racecheck memcheck; do
  step $tool 15 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
    python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/r" --dtypes bf16 --causal yes --head-dims 256 --shape 1,4,2,300,270 --repeat 0 --deterministic both
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$O/$tool.log" | tee -a "$O/steps.txt"
done
step planted 14 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/planted" --dtypes bf16 --head-dims 256 --deterministic no --repeat 0 --shape 1,4,2,257,257 --shape 2,4,2,100,1000 --seed 1922 --variants
step bench 30 python3 -m flash_mlir.bench --mode backward --bundles "$here/bvar" --head-dims 256 --seqlens 512,1024,2048,4096,8192,16384 --rounds 3 --rep-ms 25 --variants --json "$O/bench-backward.json"
grep ^backward "$O/bench.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
