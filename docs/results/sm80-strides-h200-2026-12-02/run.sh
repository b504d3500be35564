#!/usr/bin/env bash
# hD's one GPU run (seventeenth session): sm_80 strides. Staged under
# build/hD-run of /work/main's checkout; writes into $OUT.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
export PYTHONPATH="$here/python" FLASH_RUNTIME_LIB="$here/lib/libflash_runtime.so" PYTHONUNBUFFERED=1
py=python3
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader;
  $py -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'; } > "$OUT/env.txt" 2>&1
t0=$(date +%s)
step() { echo "== $1 $(( $(date +%s) - t0 ))s" | tee -a "$OUT/steps.txt"; }
step fwd_check
timeout 40 $py -m flash_mlir.gpu_check --bundles new --layout both --seed 1702 \
  --json "$OUT/fwd_check.json" > "$OUT/fwd_check.log" 2>&1; echo "rc=$?" >> "$OUT/steps.txt"
tail -1 "$OUT/fwd_check.log"
step bwd_check
timeout 35 $py -m flash_mlir.gpu_check --mode backward --bundles new --layout both --repeat 3 \
  --torch-op --seed 1703 --json "$OUT/bwd_check.json" > "$OUT/bwd_check.log" 2>&1; echo "rc=$?" >> "$OUT/steps.txt"
tail -1 "$OUT/bwd_check.log"
step profile
timeout 20 $py one-launch-profile.py --bundles new --label sm80-strides \
  --json "$OUT/profile.json" > "$OUT/profile.log" 2>&1; echo "rc=$?" >> "$OUT/steps.txt"
tail -1 "$OUT/profile.log"
step bench_fwd
timeout 25 $py -m flash_mlir.bench --bundles new --baseline base --head-dims 64,128 \
  --seqlens 2048,8192 --rounds 5 --rep-ms 40 --json "$OUT/bench_fwd.json" > "$OUT/bench_fwd.log" 2>&1
echo "rc=$?" >> "$OUT/steps.txt"
step bench_bwd
timeout 25 $py -m flash_mlir.bench --mode backward --bundles new --baseline base --head-dims 64,128 \
  --seqlens 2048,8192 --rounds 5 --rep-ms 40 --json "$OUT/bench_bwd.json" > "$OUT/bench_bwd.log" 2>&1
echo "rc=$?" >> "$OUT/steps.txt"
step done
cat "$OUT/bench_fwd.log" "$OUT/bench_bwd.log" | tail -20
