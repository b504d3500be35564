# The harness of a measuring run on the GPU machine (run by hand through the
# device tool, never in CI). A run script sources it from the staging folder
# that holds python/, lib/libflash_runtime.so and the bundle folders:
#
#   . "$(dirname "$0")/device-run.sh"        # a copy staged next to the script
#   step check90 170 python3 -m flash_mlir.tools.decode_check --bundles "$S/new90"
#   finish
#
# It records the machine (GPU, driver, clocks, torch and cuDNN versions) in
# env.txt, runs each step under a time limit with its output in <name>.log,
# appends "<name> rc=<code> <seconds>s | <last line>" to steps.txt, and after
# every step packs what the run wrote into $OUT/res.tgz, so that a run cut
# short by the device's limit still returns the steps it finished.
set -u
S=$(cd "$(dirname "${BASH_SOURCE[1]:-$0}")" && pwd)
cd "$S"
O=$(mktemp -d)
RUN_T0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; cp "$O/steps.txt" "$OUT/" 2>/dev/null; }
{ date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'
} > "$O/env.txt" 2>&1
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
step() {
  local name=$1 limit=$2 start
  shift 2
  start=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1
  local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - start ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"
  save
}
finish() { echo "total $(( $(date +%s) - RUN_T0 ))s" | tee -a "$O/steps.txt"; save; }
