set -u
S=build/lead-run; O=$OUT/r; mkdir -p $O
export PYTHONPATH=$(pwd)/python FLASH_RUNTIME_LIB=$S/libflash_runtime.so PYTHONUNBUFFERED=1
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $O/env.txt
step check-sm90a 150 python3 -m flash_mlir.tools.decode_check --bundles $S/d90 --json $O/check-sm90a.json
step check-sm80 100 python3 -m flash_mlir.tools.decode_check --bundles $S/d80 --quick --json $O/check-sm80.json
step memcheck 60 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode --error-exitcode 9 python3 -m flash_mlir.tools.decode_check --bundles $S/d90 --small --only paged,split,many,peaks
step bench 120 python3 -m flash_mlir.tools.decode_bench --bundles $S/d90 --baseline-bundles $S/base90 --gqa 8/1 --rows 1x8192,128x2048,64x1024 --rounds 3 --json $O/bench.json
tar czf $OUT/r.tgz -C $OUT r
