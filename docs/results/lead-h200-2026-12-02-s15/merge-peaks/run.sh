set -u
S=build/lead-run; O=$OUT/r; mkdir -p $O
export PYTHONPATH=$(pwd)/python FLASH_RUNTIME_LIB=$S/libflash_runtime.so PYTHONUNBUFFERED=1
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"; }
step peaks-sm90a 120 python3 -m flash_mlir.tools.decode_check --bundles $S/d90 --only peaks --json $O/peaks-sm90a.json
step peaks-sm80 120 python3 -m flash_mlir.tools.decode_check --bundles $S/d80 --only peaks --json $O/peaks-sm80.json
step peaks-planted 120 python3 -m flash_mlir.tools.decode_check --bundles $S/plant90 --only peaks --json $O/peaks-planted.json
step many-planted 120 python3 -m flash_mlir.tools.decode_check --bundles $S/plant90 --only many --json $O/many-planted.json
step sanitize-peaks 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 1 python3 -m flash_mlir.tools.decode_check --bundles $S/d90 --only peaks --small
tar czf $OUT/r.tgz -C $OUT r
