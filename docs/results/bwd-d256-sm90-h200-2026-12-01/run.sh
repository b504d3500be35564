#!/usr/bin/env bash
# h2: D=256 sm_90a backward checks + bench, one call. Writes <= 8 files to $OUT.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
out=${OUT:-/tmp/h2-out}; mkdir -p "$out"
B=$here/bundles
S=$out/summary.txt
t0=$(date +%s)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  python3 -c 'import sys,torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'
  ls "$B" | wc -l; ls "$B"/*.json | xargs -n1 basename; } > "$out/env.txt" 2>&1
step() { echo "$1 rc=$2 t=$(( $(date +%s) - t0 ))s" | tee -a "$S"; }
# 1. correctness, both plans, D=256 (the library's backward head dims), repeat 10
timeout 120 python3 -m flash_mlir.gpu_check --mode backward --bundles "$B" --deterministic both \
  --json "$out/check.json" > "$out/check.log" 2>&1; step check $?
grep -cE "^PASS" "$out/check.log" | sed 's/^/pass lines: /' >> "$S"; grep -E "^FAIL|error" "$out/check.log" | head -5 >> "$S"
# 2. planted bug must be caught
timeout 45 python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/planted" --dtypes bf16 \
  --causal yes --deterministic no --repeat 0 --shape 1,4,2,257,257 --shape 2,4,2,100,1000 \
  > "$out/planted.log" 2>&1; step planted $?
# 3. compute-sanitizer memcheck + racecheck, both plans, D=256
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  echo "=== $tool" >> "$out/sanitizer.log"
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 70 "$san" --tool $tool --kernel-name kns=flash_bwd \
    --error-exitcode 3 python3 -m flash_mlir.gpu_check --mode backward --bundles "$B" --dtypes bf16 \
    --causal yes --shape 1,4,2,150,70 --repeat 0 --deterministic both >> "$out/sanitizer.log" 2>&1
  step $tool $?
done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/sanitizer.log" >> "$S"
# 4. speed vs SDPA FA2 / cuDNN
timeout 150 python3 -m flash_mlir.bench --mode backward --bundles "$B" --head-dims 256 \
  --seqlens 2048,8192,16384 --rounds 3 --json "$out/bench.json" > "$out/bench.log" 2>&1; step bench $?
tail -8 "$out/bench.log" >> "$S"
