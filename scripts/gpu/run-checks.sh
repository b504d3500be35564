#!/usr/bin/env bash
# The GPU checks of a bundle directory, through the one launcher
# (libflash_runtime.so), in one command on the GPU machine (torch, CUDA
# driver, no LLVM):
#
#   bash scripts/gpu/run-checks.sh BUNDLE_DIR
#
# needs, besides the source tree: BUNDLE_DIR (compiled here with
# `python3 -m flash_mlir.compile --out BUNDLE_DIR --arch sm_90a`),
# build/lib/libflash_runtime.so and build/bin/flash-runtime-check (built here
# by scripts/build.sh; the binary finds the library through $ORIGIN/../lib).
# With the device tool, carry exactly those three paths.
#
# Runs, each under its own time limit (seconds, from the environment):
#   1. the environment and a no-GPU smoke test of the library (open, select)
#   2. python3 -m flash_mlir.gpu_check --bundles BUNDLE_DIR   (GPU_CHECK_TIMEOUT, 330;
#      GPU_CHECK_ARGS adds options, e.g. --quick or --variants)
#   3. build/bin/flash-runtime-check BUNDLE_DIR               (RUNTIME_CHECK_TIMEOUT, 200)
# and writes into $OUT (default build/gpu-checks): env.txt, gpu_check.json,
# gpu_check.log, runtime_check.log, summary.json (five files, one folder).
# Exit status 0 only if every step passed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
bundles=${1:-build/bundles}
out=${OUT:-build/gpu-checks}
mkdir -p "$out"
lib=build/lib/libflash_runtime.so
check=build/bin/flash-runtime-check
python=${PYTHON:-python3}
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
export FLASH_RUNTIME_LIB="$root/$lib"
export PYTHONUNBUFFERED=1

{
  echo "date: $(date -u +%FT%TZ)"
  echo "bundles: $bundles ($(ls "$bundles"/*.json 2>/dev/null | wc -l) plans)"
  echo "git: $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -2
  "$python" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
  ls -l "$lib" "$check" 2>&1
  ldd "$lib" 2>&1
} > "$out/env.txt"
cat "$out/env.txt"

# 1. The library loads and selects without touching the GPU.
"$python" - "$bundles" >> "$out/env.txt" 2>&1 <<'EOF'
import sys
from flash_mlir.runtime import KernelLibrary, capi
lib = KernelLibrary(sys.argv[1])
print(capi.lib().flash_version().decode(), "-", len(lib.all), "plans")
for b in lib.all:
    print(f"  {b.name}: {b.arch} {b.dtype} D={b.head_dim} causal={b.causal} lse={b.writes_lse} "
          f"seq_range={b.seq_range} variant={b.variant!r}")
EOF
smoke_rc=$?
tail -3 "$out/env.txt"

# 2. gpu_check: every bundle against torch SDPA in f32, and the torch op.
timeout "${GPU_CHECK_TIMEOUT:-330}" "$python" -m flash_mlir.gpu_check --bundles "$bundles" \
  --json "$out/gpu_check.json" ${GPU_CHECK_ARGS:-} 2>&1 | tee "$out/gpu_check.log" | tail -5
gpu_rc=$?

# 3. The C++ check: the same launcher through its C ABI.
timeout "${RUNTIME_CHECK_TIMEOUT:-200}" "$check" "$bundles" 2>&1 | tee "$out/runtime_check.log" | tail -3
runtime_rc=$?

"$python" - "$out" "$smoke_rc" "$gpu_rc" "$runtime_rc" <<'EOF'
import json, os, re, sys
out, smoke, gpu, runtime = sys.argv[1], *map(int, sys.argv[2:])
def last_count(path):
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        m = re.match(r"(\d+) passed, (\d+) failed", line)
        if m:
            return {"passed": int(m[1]), "failed": int(m[2])}
    return None
summary = {
    "smoke": {"rc": smoke},
    "gpu_check": {"rc": gpu, **(last_count(os.path.join(out, "gpu_check.log")) or {})},
    "runtime_check": {"rc": runtime, **(last_count(os.path.join(out, "runtime_check.log")) or {})},
}
summary["ok"] = smoke == 0 and gpu == 0 and runtime == 0
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)
print(json.dumps(summary))
EOF
[ "$smoke_rc" -eq 0 ] && [ "$gpu_rc" -eq 0 ] && [ "$runtime_rc" -eq 0 ]
