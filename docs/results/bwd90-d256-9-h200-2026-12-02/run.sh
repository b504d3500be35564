#!/usr/bin/env bash
# H1 (bwd90-d256-9) H200 run: the D = 256 sm_90a backward schedule candidates checked
# (NaN-poisoned, both plans, 10 repeats of the deterministic ones), a planted breakage,
# memcheck + racecheck, and the backward benchmark at D = 256 with main's kernel (`main`)
# and the timing-only `nored`/`red50`, FA2 and cuDNN in the same interleaved rounds.
# Every step has a limit; all output is tarred into $OUT/h1-out.tar.gz.
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=$(mktemp -d); export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"
  tar czf "${OUT:-$here}/h1-out.tar.gz" -C "$O" .; }
finish() { echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; tar czf "${OUT:-$here}/h1-out.tar.gz" -C "$O" .; }
trap finish EXIT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'; } > "$O/env.txt" 2>&1
step smoke 40 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/bchk" --dtypes bf16 --causal yes --head-dims 256 --deterministic no --repeat 0 --shape 1,4,2,300,270 --variants
grep -q "^smoke rc=124" "$O/steps.txt" && { echo "smoke hung: stop" | tee -a "$O/steps.txt"; exit 1; }
step check256 120 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/bchk" --head-dims 256 --deterministic both --repeat 10 --variants --seed 1901 --json "$O/check256.json"
step check_c1 60 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/c1" --head-dims 256 --deterministic both --repeat 10 --seed 1902 --json "$O/check_c1.json"
step check_c66 60 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/c66" --head-dims 256 --deterministic both --repeat 10 --seed 1903 --json "$O/check_c66.json"
step planted 40 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/planted" --dtypes bf16 --head-dims 256 --deterministic no --repeat 0 --shape 1,4,2,257,257 --shape 2,4,2,100,1000 --seed 1904
step bench 200 python3 -m flash_mlir.bench --mode backward --bundles "$here/bvar" --head-dims 256 --seqlens 512,1024,2048,4096,8192,16384 --rounds 3 --rep-ms 30 --variants --json "$O/bench-backward.json"
grep ^backward "$O/bench.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
for tool in memcheck racecheck; do
  step $tool 90 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
    python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/bchk" --dtypes bf16 --causal yes --head-dims 256 --shape 1,4,2,300,270 --repeat 0 --deterministic both --variants
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$O/$tool.log" | tee -a "$O/steps.txt"
done
