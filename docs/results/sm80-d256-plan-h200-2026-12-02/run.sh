#!/usr/bin/env bash
# hA's GPU run (2026-12-02, seventeenth session, branch sm80-d256-plan): the sm_80
# backward plans chosen by the device's opt-in shared memory. bundles/ = every sm_80
# backward bundle (D 64/128/256, bf16/f16, both plans, and the new D = 256 plans for
# 227 KB, *_smem227k); bench/ = the bf16 D = 256 atomic plans (main's one-stage plan and
# the new two-stage one) + forward bundles for O and LSE; planted/ = the new plan with
# a planted bug (visit t + 1's Q, dO, shift, Δ issued into visit t's stage).
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=${OUT:-$here/out}; W=$here/res; mkdir -p "$O" "$W"
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
pack() { tar -C "$here" -cf "$O/results.tar" res; }
note() { echo "$* t=$(( $(date +%s)-t0 ))" | tee -a "$W/summary.txt"; pack; }
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1 || true)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; p = torch.cuda.get_device_properties(0); print("torch", torch.__version__, "shared_memory_per_block_optin", getattr(p, "shared_memory_per_block_optin", None))'
  echo "ncu: ${NCU:-none}"; ls bundles | grep json; ls bench planted; } > "$W/env.txt" 2>&1
note "env"
timeout 45 python3 -m flash_mlir.gpu_check --mode backward --bundles bundles --head-dims 256 \
  --deterministic both --variants --repeat 10 --json "$W/check256.json" > "$W/check256.log" 2>&1
note "check256 rc=$? $(grep -c ^PASS "$W/check256.log") PASS $(grep -c ^FAIL "$W/check256.log") FAIL; $(grep -c smem227k "$W/check256.log") lines of the new plan; $(tail -1 "$W/check256.log")"
timeout 20 python3 -m flash_mlir.gpu_check --mode backward --bundles planted --dtypes bf16 --head-dims 256 \
  --causal both --deterministic no --repeat 0 --shape 1,4,2,257,257 --shape 2,4,2,100,1000 > "$W/planted.log" 2>&1
note "planted (must fail) rc=$? $(grep -c ^PASS "$W/planted.log") PASS $(grep -c ^FAIL "$W/planted.log") FAIL"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 35 "$san" --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
    python3 -m flash_mlir.gpu_check --mode backward --bundles bundles --dtypes bf16 --head-dims 256 \
    --causal yes --shape 1,4,2,150,70 --repeat 0 --deterministic no > "$W/$tool.log" 2>&1
  note "$tool rc=$? $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$W/$tool.log" | tr '\n' ' ') $(grep -c ^PASS "$W/$tool.log") PASS: $(grep ^PASS "$W/$tool.log" | awk '{print $2}' | tr '\n' ' ')"
done
timeout 80 python3 -m flash_mlir.bench --mode backward --bundles bench --head-dims 256 \
  --seqlens 512,1024,2048,4096,8192,16384 --rounds 3 --variants --json "$W/bench.json" > "$W/bench.log" 2>&1
note "bench rc=$?"
timeout 50 python3 -m flash_mlir.gpu_check --mode backward --bundles bundles --head-dims 64,128 \
  --deterministic both --json "$W/check64-128.json" > "$W/check64-128.log" 2>&1
note "check64-128 rc=$? $(grep -c ^PASS "$W/check64-128.log") PASS $(grep -c ^FAIL "$W/check64-128.log") FAIL; $(tail -1 "$W/check64-128.log")"
timeout 25 python3 prof-d256.py bench --kineto > "$W/kineto.log" 2>&1
note "kineto rc=$?"
if [ -n "$NCU" ]; then
  timeout 60 "$NCU" --clock-control none --profile-from-start off -c 9 --section LaunchStats --section Occupancy \
    --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis -o "$W/d256" -f \
    python3 prof-d256.py bench > "$W/ncu.log" 2>&1
  note "ncu rc=$?"
  [ -f "$W/d256.ncu-rep" ] && { "$NCU" -i "$W/d256.ncu-rep" --page details > "$W/ncu-details.txt" 2>&1; rm -f "$W/d256.ncu-rep"; note "ncu details"; }
fi
grep ^backward "$W/bench.log" | sed 's/err.*//'
