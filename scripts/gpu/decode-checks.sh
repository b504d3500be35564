#!/usr/bin/env bash
# The GPU checks and benchmark of the split-KV (decode) plans, in one command
# on the GPU machine (torch, CUDA driver, no LLVM):
#
#   bash scripts/gpu/decode-checks.sh SM90A_BUNDLES [SM80_BUNDLES]
#
# needs, besides the python/ tree: the bundle directories (compiled here with
# `python3 -m flash_mlir.compile --ops split_kv,paged --out DIR --arch sm_90a`,
# and `--arch sm_80 --cubin-archs sm_80,sm_90`) and build/lib/libflash_runtime.so
# ($FLASH_RUNTIME_LIB overrides). Runs, each under its own time limit:
#   1. decode_check on the sm_90a plans (paged, split_kv, CUDA-graph replays)
#   2. decode_check --quick on the sm_80 plans (their sm_90 cubins), if given
#   3. decode_check with a planted bug (table-row): must FAIL
#   4. compute-sanitizer memcheck and racecheck on six small cases (if present;
#      two of them cut into 33 parts: the two-level merge)
#   5. decode_bench (bandwidth against SDPA cuDNN/FA2, read ceiling, host time)
# and writes logs and JSON into $OUT (default build/decode-checks).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sm90a=${1:?usage: decode-checks.sh SM90A_BUNDLES [SM80_BUNDLES]}
sm80=${2:-}
out=${OUT:-build/decode-checks}
mkdir -p "$out"
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
export FLASH_RUNTIME_LIB=${FLASH_RUNTIME_LIB:-$root/build/lib/libflash_runtime.so}
export PYTHONUNBUFFERED=1
py=${PYTHON:-python3}
status=0
step() { # name timeout command...
  local name=$1 limit=$2; shift 2
  echo "=== $name ($(date -u +%T))"
  timeout "$limit" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  tail -n 4 "$out/$name.log"
  echo "=== $name rc=$rc"
  return $rc
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
step check-sm90a "${CHECK_TIMEOUT:-150}" $py -m flash_mlir.tools.decode_check \
  --bundles "$sm90a" --json "$out/check-sm90a.json" || status=1
if [ -n "$sm80" ]; then
  step check-sm80 "${CHECK_TIMEOUT:-150}" $py -m flash_mlir.tools.decode_check \
    --bundles "$sm80" --quick --json "$out/check-sm80.json" || status=1
fi
if step planted "${PLANT_TIMEOUT:-60}" $py -m flash_mlir.tools.decode_check \
  --bundles "$sm90a" --quick --plant table-row --only paged; then
  echo "planted bug NOT detected"; status=1
else
  echo "planted bug detected (the check failed, as it must)"
fi
if command -v compute-sanitizer >/dev/null && [ -z "${SKIP_SANITIZER:-}" ]; then
  for tool in memcheck racecheck; do
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 step "$tool" "${SANITIZER_TIMEOUT:-90}" \
      compute-sanitizer --tool "$tool" --kernel-name kns=flash_decode --error-exitcode 9 \
      $py -m flash_mlir.tools.decode_check --bundles "$sm90a" --small --only paged,split,many \
      || status=1
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/$tool.log" | tail -1
  done
fi
if [ -z "${SKIP_BENCH:-}" ]; then
  step bench "${BENCH_TIMEOUT:-200}" $py -m flash_mlir.tools.decode_bench \
    --bundles "$sm90a" --json "$out/bench.json" ${BENCH_ARGS:-} || status=1
  cat "$out/bench.log"
fi
exit $status
