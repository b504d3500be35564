#!/usr/bin/env bash
# hA's GPU run (2026-12-02, sixteenth session): the sm_80 backward at D = 256 with
# 64-row Q tiles and one stage (branch bwd-sm80-d256-2). bundles/ = the new form (both
# dtypes, both plans), bench/ = new bf16 + main cdb8c67's kernel as "old" + the
# double-buffered 64x64 (230,400 B, H200-only) as "db"; planted/ = Pᵀ stored at chunk
# Br/16 instead of Br/8 (overlapping dSᵀ); dbcheck/ = "db" under its plain name.
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=${OUT:-$here/out}; W=$here/res; mkdir -p "$O" "$W"
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
pack() { tar -C "$here" -cf "$O/results.tar" res; }
note() { echo "$* t=$(( $(date +%s)-t0 ))" | tee -a "$W/summary.txt"; pack; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'; ls bundles bench planted dbcheck; } > "$W/env.txt" 2>&1
note "env"
timeout 60 python3 -m flash_mlir.gpu_check --mode backward --bundles bundles --head-dims 256 \
  --deterministic both --repeat 10 --json "$W/check.json" > "$W/check.log" 2>&1
note "check rc=$? $(grep -c ^PASS "$W/check.log") PASS $(grep -c ^FAIL "$W/check.log") FAIL; $(tail -1 "$W/check.log")"
timeout 20 python3 -m flash_mlir.gpu_check --mode backward --bundles planted --dtypes bf16 --head-dims 256 \
  --causal both --deterministic both --repeat 0 --shape 1,4,2,257,257 --shape 2,4,2,100,1000 > "$W/planted.log" 2>&1
note "planted (must fail) rc=$? $(grep -c ^PASS "$W/planted.log") PASS $(grep -c ^FAIL "$W/planted.log") FAIL"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 35 "$san" --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
    python3 -m flash_mlir.gpu_check --mode backward --bundles bundles --dtypes bf16 --head-dims 256 \
    --causal yes --shape 1,4,2,150,70 --repeat 0 --deterministic both > "$W/$tool.log" 2>&1
  note "$tool rc=$? $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$W/$tool.log" | tr '\n' ' ') $(grep -c ^PASS "$W/$tool.log") PASS"
done
timeout 80 python3 -m flash_mlir.bench --mode backward --bundles bench --head-dims 256 \
  --seqlens 512,1024,2048,4096,8192,16384 --rounds 3 --variants --json "$W/bench.json" > "$W/bench.log" 2>&1
note "bench rc=$?"
timeout 20 python3 -m flash_mlir.gpu_check --mode backward --bundles dbcheck --dtypes bf16 --head-dims 256 \
  --deterministic no --repeat 0 > "$W/dbcheck.log" 2>&1
note "dbcheck rc=$? $(grep -c ^PASS "$W/dbcheck.log") PASS $(grep -c ^FAIL "$W/dbcheck.log") FAIL"
grep ^backward "$W/bench.log" | sed 's/err.*//'
