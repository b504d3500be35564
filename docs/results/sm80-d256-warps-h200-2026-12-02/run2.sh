#!/usr/bin/env bash
# H2's GPU run 2 (2026-12-02, eighteenth session, branch sm80-d256-warps): main's D = 256
# role split with dQ in warp tiles of 32 rows x 64 columns (ours) or 32 x 32 in two passes
# (*_dqhalf), main's kernel (*_main, *_main1), a planted bug (*_planted, must FAIL).
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=${OUT:-$here/out}; W=$(mktemp -d); mkdir -p "$O"
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
pack() { tar -C "$W" -czf "$O/res.tgz" .; }
note() { echo "$* t=$(( $(date +%s)-t0 ))" | tee -a "$W/summary.txt"; pack; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; ls bundles bench | grep json; } > "$W/env.txt" 2>&1
timeout 40 python3 -m flash_mlir.gpu_check --mode backward --bundles bundles --head-dims 256 \
  --deterministic no --variants --repeat 0 --json "$W/check256.json" > "$W/check256.log" 2>&1
note "check256 rc=$? all: $(grep -c ^PASS "$W/check256.log") PASS $(grep -c ^FAIL "$W/check256.log") FAIL; planted: $(grep ^PASS "$W/check256.log" | grep -c planted) PASS $(grep ^FAIL "$W/check256.log" | grep -c planted) FAIL; others FAIL: $(grep ^FAIL "$W/check256.log" | grep -vc planted); dqhalf PASS $(grep ^PASS "$W/check256.log" | grep -c dqhalf); $(tail -1 "$W/check256.log")"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 30 "$san" --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
    python3 -m flash_mlir.gpu_check --mode backward --bundles bundles --dtypes bf16 --head-dims 256 \
    --causal yes --shape 1,4,2,150,70 --repeat 0 --deterministic no > "$W/$tool.log" 2>&1
  note "$tool rc=$? $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$W/$tool.log" | tr '\n' ' ') $(grep -c ^PASS "$W/$tool.log") PASS: $(grep ^PASS "$W/$tool.log" | awk '{print $2}' | tr '\n' ' ')"
done
timeout 80 python3 -m flash_mlir.bench --mode backward --bundles bench --head-dims 256 \
  --seqlens 512,1024,2048,4096,8192,16384 --rounds 3 --rep-ms 50 --variants --json "$W/bench.json" > "$W/bench.log" 2>&1
note "bench rc=$?"
grep ^backward "$W/bench.log" | sed 's/err.*//' | sed 's/flash_mlir_flash_bwd_sm_80_bf16_d256\(_causal\)\?=/one_stage=/'
pack
