#!/usr/bin/env bash
# H2's GPU run (2026-12-02, eighteenth session, branch sm80-d256-warps): the sm_80
# D = 256 backward with each warp of a pair computing Sᵀ and dPᵀ of half the queries
# (PairSplit::Queries). Staged (stage.sh): bundles/ = the branch's sm_80 D = 256 backward
# plans (bf16, f16; one stage, *_smem227k, deterministic) + the dq32 variant (renamed,
# *_dq32); bench/ = bf16 D = 256 atomic plans: the branch's (ours, and its one-stage plan),
# main's (renamed *_main), dq32, + forward bundles for O and LSE; planted/ = the branch's
# plan with a planted bug.
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=${OUT:-$here/out}; W=$(mktemp -d); mkdir -p "$O"
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
pack() { tar -C "$W" -czf "$O/res.tgz" .; }
note() { echo "$* t=$(( $(date +%s)-t0 ))" | tee -a "$W/summary.txt"; pack; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'; ls bundles bench planted | grep -v -e mlir -e cubin -e ptx; } > "$W/env.txt" 2>&1
note "env"
timeout 45 python3 -m flash_mlir.gpu_check --mode backward --bundles bundles --head-dims 256 \
  --deterministic both --variants --repeat 10 --json "$W/check256.json" > "$W/check256.log" 2>&1
note "check256 rc=$? $(grep -c ^PASS "$W/check256.log") PASS $(grep -c ^FAIL "$W/check256.log") FAIL; $(grep -c smem227k "$W/check256.log") smem227k lines, $(grep -c dq32 "$W/check256.log") dq32 lines; $(tail -1 "$W/check256.log")"
timeout 25 python3 -m flash_mlir.gpu_check --mode backward --bundles planted --dtypes bf16 --head-dims 256 \
  --causal both --deterministic no --repeat 0 --shape 1,4,2,257,257 --shape 2,4,2,100,1000 > "$W/planted.log" 2>&1
note "planted (must fail) rc=$? $(grep -c ^PASS "$W/planted.log") PASS $(grep -c ^FAIL "$W/planted.log") FAIL"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 35 "$san" --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
    python3 -m flash_mlir.gpu_check --mode backward --bundles bundles --dtypes bf16 --head-dims 256 \
    --causal yes --shape 1,4,2,150,70 --repeat 0 --deterministic no > "$W/$tool.log" 2>&1
  note "$tool rc=$? $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$W/$tool.log" | tr '\n' ' ') $(grep -c ^PASS "$W/$tool.log") PASS: $(grep ^PASS "$W/$tool.log" | awk '{print $2}' | tr '\n' ' ')"
done
timeout 110 python3 -m flash_mlir.bench --mode backward --bundles bench --head-dims 256 \
  --seqlens 512,1024,2048,4096,8192,16384 --rounds 3 --variants --json "$W/bench.json" > "$W/bench.log" 2>&1
note "bench rc=$?"
grep ^backward "$W/bench.log" | sed 's/err.*//' | head -40
pack
