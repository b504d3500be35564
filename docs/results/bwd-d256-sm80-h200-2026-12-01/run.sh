#!/usr/bin/env bash
# h1's GPU run: D=256 sm_80 backward checks, sanitizers, planted bug, bench.
set -u
cd "$(dirname "$0")"
export PYTHONPATH=$PWD/python FLASH_RUNTIME_LIB=$PWD/lib/libflash_runtime.so PYTHONUNBUFFERED=1
out=${OUT:-out}; mkdir -p "$out"
B=bundles; P=planted
t0=$(date +%s)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'; ls $B | wc -l; } > "$out/env.txt" 2>&1
cat "$out/env.txt"
timeout 85 python3 -m flash_mlir.gpu_check --mode backward --bundles $B --head-dims 256 \
  --deterministic both --json "$out/check.json" > "$out/check.log" 2>&1
echo "check rc=$? $(grep -c ^PASS "$out/check.log") PASS $(grep -c ^FAIL "$out/check.log") FAIL; $(tail -1 "$out/check.log") t=$(( $(date +%s)-t0 ))"
timeout 25 python3 -m flash_mlir.gpu_check --mode backward --bundles $P --dtypes bf16 --head-dims 256 \
  --causal yes --deterministic yes --repeat 0 --shape 1,4,2,257,257 --shape 2,4,2,100,1000 > "$out/planted.log" 2>&1
echo "planted (must fail) rc=$? $(tail -1 "$out/planted.log") t=$(( $(date +%s)-t0 ))"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 45 "$san" --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
    python3 -m flash_mlir.gpu_check --mode backward --bundles $B --dtypes bf16 --head-dims 256 \
    --causal yes --shape 1,4,2,150,70 --repeat 0 --deterministic both > "$out/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/$tool.log" | tr '\n' ' ') $(grep -c ^PASS "$out/$tool.log") PASS t=$(( $(date +%s)-t0 ))"
done
timeout 80 python3 -m flash_mlir.bench --mode backward --bundles $B --head-dims 256 --seqlens 2048,8192 \
  --rounds 3 --json "$out/bench.json" > "$out/bench.log" 2>&1
echo "bench rc=$? t=$(( $(date +%s)-t0 ))"; tail -5 "$out/bench.log"
