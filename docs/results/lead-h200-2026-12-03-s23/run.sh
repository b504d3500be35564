#!/usr/bin/env bash
# Lead's H200 run, twenty-third session (one call):
# 1) the twenty-second session's staged checks: H3's GPU check of the split-KV warp-0
#    combine (build/s22-h3-run/run.sh, with main 49cd04c's python and runtime), and
#    memcheck/racecheck of the shipped D = 128 sm_90a backward (build/s22-h1-run2/san.sh);
# 2) issue 16's backward and forward+backward tables on main 49cd04c (b90);
# 3) issue 17's decode table on main 49cd04c (dec90; the same directory again as a
#    variant, so the paged plans are also read outside the bench's first slot).
# b90:   python3 -m flash_mlir.compile --out b90 --arch sm_90a --dtypes bf16 --head-dims 64,128,256 --ops forward,backward --deterministic no
# dec90: python3 -m flash_mlir.compile --out dec90 --arch sm_90a --ops split_kv,paged --dtypes bf16 --head-dims 128
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
t0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; cp "$O/steps.txt" "$OUT/" 2>/dev/null; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'; } > "$O/env.txt" 2>&1
mkdir -p $O/h3; ( OUT=$O/h3 CHECK_LIMIT=55 bash $S/../s22-h3-run/run.sh > $O/h3/run.out 2>&1 )
echo "h3 $(( $(date +%s) - t0 ))s" | tee -a $O/steps.txt; save
mkdir -p $O/h1; ( OUT=$O/h1 timeout 100 bash $S/../s22-h1-run2/san.sh > $O/h1/san.out 2>&1 )
echo "h1 $(( $(date +%s) - t0 ))s" | tee -a $O/steps.txt; save
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"; save; }
step bench-dec 130 python3 -m flash_mlir.tools.decode_bench --bundles $S/dec90 --variant again=$S/dec90 --gqa 32/8,8/1 --rounds 5 --json $O/bench-dec.json
step bench-bwd 150 python3 -m flash_mlir.bench --mode backward --bundles $S/b90 --head-dims 64,128,256 --seqlens 512,1024,2048,4096,8192,16384 --rounds 5 --rep-ms 30 --json $O/bench-bwd.json
step bench-train 70 python3 -m flash_mlir.bench --mode train --bundles $S/b90 --head-dims 64,128,256 --seqlens 2048,8192 --rounds 3 --rep-ms 30 --json $O/bench-train.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
