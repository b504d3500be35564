#!/usr/bin/env bash
# The GPU checks of the backward plans, through the one launcher
# (libflash_runtime.so), in one command on the GPU machine:
#
#   bash scripts/gpu/run-backward-checks.sh BUNDLE_DIR [PLANTED_DIR]
#
# BUNDLE_DIR holds the backward bundles (`python3 -m flash_mlir.compile --ops
# backward --arch sm_80 --cubin-archs sm_80,sm_90`, or `--arch sm_90a`) and,
# for the torch op's autograd and the speed rows, forward bundles with LSE;
# PLANTED_DIR (optional)
# bundles compiled from a deliberately broken lowering, which must fail.
# Carry BUNDLE_DIR, PLANTED_DIR and build/lib/libflash_runtime.so.
#
# Steps, each under its own time limit (seconds, from the environment), logs
# and JSON in $OUT (default build/gpu-checks-backward):
#   1. env.txt: the machine, the plans the library opens
#   2. check.log/.json: gpu_check --mode backward (every shape, both plans,
#      10 deterministic runs, the torch op's autograd)     (CHECK_TIMEOUT, 150)
#   3. memcheck.log, racecheck.log: compute-sanitizer on one small case per
#      head dimension, both plans, our kernels only        (SANITIZER_TIMEOUT, 90)
#   4. planted.log: the planted breakage, which must fail (PLANTED_TIMEOUT, 60;
#      PLANTED_ARGS replaces the default "--deterministic no --repeat 0", e.g.
#      "--deterministic yes --repeat 10" for a breakage of the determinism)
#   5. bench.log/.json: backward TFLOP/s vs SDPA FA2 and cuDNN, bf16
#      (BENCH_HEAD_DIMS, default 64,128; BENCH_SEQLENS, default 4096,8192;
#      BENCH_ARGS, e.g. --variants to time every plan of a key)
#                                                           (BENCH_TIMEOUT, 120)
# and summary.json. Exit status 0 only if steps 2-4 passed. DETERMINISTIC
# (both, yes, no; default both) says which plans steps 2 and 3 check.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
bundles=${1:-build/bundles-backward}
planted=${2:-}
out=${OUT:-build/gpu-checks-backward}
mkdir -p "$out"
python=${PYTHON:-python3}
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
export FLASH_RUNTIME_LIB="$root/build/lib/libflash_runtime.so"
export PYTHONUNBUFFERED=1

{
  echo "date: $(date -u +%FT%TZ)"
  echo "bundles: $bundles ($(ls "$bundles"/*.json 2>/dev/null | wc -l) plans)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -2
  "$python" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__)' 2>&1
  which compute-sanitizer 2>&1 || ls /usr/local/cuda/bin/compute-sanitizer 2>&1
  "$python" - "$bundles" <<'EOF' 2>&1
import sys
from flash_mlir.runtime import KernelLibrary, capi
lib = KernelLibrary(sys.argv[1])
print(capi.lib().flash_version().decode(), "-", len(lib.all), "plans")
for b in lib.all:
    print(f"  {b.name}: {b.op} {b.arch} {b.dtype} D={b.head_dim} causal={b.causal} "
          f"lse={b.writes_lse} variant={b.variant!r} kernels={b.kernel_count}")
EOF
} > "$out/env.txt"
head -8 "$out/env.txt"

# 2. Every case, both plans, determinism, the torch op.
deterministic=${DETERMINISTIC:-both}
timeout "${CHECK_TIMEOUT:-150}" "$python" -m flash_mlir.gpu_check --mode backward \
  --bundles "$bundles" --deterministic "$deterministic" --torch-op \
  --json "$out/check.json" ${CHECK_ARGS:-} \
  > "$out/check.log" 2>&1
check_rc=$?
grep -E "FAIL|error|Traceback" "$out/check.log" | head -20
tail -2 "$out/check.log"

# 3. compute-sanitizer, one small case per head dimension (GQA 4/2, causal
# Nq > Nk: rows that see no key, ragged tails), both plans.
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
sanitize_rc=0
for tool in memcheck racecheck; do
  if [ -x "$sanitizer" ]; then
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout "${SANITIZER_TIMEOUT:-90}" "$sanitizer" \
      --tool "$tool" --kernel-name kns=flash_bwd --error-exitcode 3 \
      "$python" -m flash_mlir.gpu_check --mode backward --bundles "$bundles" --dtypes bf16 \
      --causal yes --shape 1,4,2,150,70 --repeat 0 --deterministic "$deterministic" \
      > "$out/$tool.log" 2>&1
    rc=$?
  else
    echo "compute-sanitizer not found" > "$out/$tool.log"; rc=127
  fi
  echo "$tool: rc=$rc $(grep -E "ERROR SUMMARY|passed, " "$out/$tool.log" | tr '\n' ' ')"
  [ "$rc" -eq 0 ] || sanitize_rc=$rc
done

# 4. The planted breakage must be caught.
planted_rc=skipped
if [ -n "$planted" ]; then
  timeout "${PLANTED_TIMEOUT:-60}" "$python" -m flash_mlir.gpu_check --mode backward \
    --bundles "$planted" --dtypes bf16 --causal yes ${PLANTED_ARGS:---deterministic no --repeat 0} \
    --shape 1,4,2,257,257 --shape 2,4,2,100,1000 > "$out/planted.log" 2>&1
  planted_rc=$?
  echo "planted (must fail): rc=$planted_rc $(tail -1 "$out/planted.log")"
fi

# 5. Speed: backward alone, ours vs SDPA FA2 and cuDNN (needs forward plans).
timeout "${BENCH_TIMEOUT:-120}" "$python" -m flash_mlir.bench --mode backward --bundles "$bundles" \
  --head-dims "${BENCH_HEAD_DIMS:-64,128}" --seqlens "${BENCH_SEQLENS:-4096,8192}" \
  --rounds "${BENCH_ROUNDS:-3}" ${BENCH_ARGS:-} --json "$out/bench.json" > "$out/bench.log" 2>&1
bench_rc=$?
tail -9 "$out/bench.log"

"$python" - "$out" "$check_rc" "$sanitize_rc" "$planted_rc" "$bench_rc" <<'EOF'
import json, os, sys
out, check, sanitize, planted, bench = sys.argv[1:]
summary = {"check_rc": int(check), "sanitizer_rc": int(sanitize),
           "planted_rc": planted, "planted_caught": planted not in ("0", "skipped"),
           "bench_rc": int(bench)}
summary["ok"] = check == "0" and sanitize == "0" and planted != "0"
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)
print(json.dumps(summary))
EOF
[ "$check_rc" -eq 0 ] && [ "$sanitize_rc" -eq 0 ] && [ "$planted_rc" != 0 ]
