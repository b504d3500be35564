#!/usr/bin/env bash
# hB (bwd-sm90-d128) H200 run: ncu (--clock-control none) on one backward of
# SDPA's cuDNN backend and of main's sm_90a kernel (plus the timing-only nored
# variant at D = 128), bf16, non-causal, N = 8192, B*N = 16k, H*D = 2048, D = 128
# and 256; then the D = 128 timing variants (nored, red50, nowait) against
# main's kernel, FA2 and cuDNN in the same interleaved rounds. Each step has a limit.
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=${OUT:-$here/out}; mkdir -p "$O"
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"; return $rc; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'; ncu --version | tail -1; } >> "$O/steps.txt" 2>&1
M=lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_red.sum.per_second
NCU="ncu --clock-control none --profile-from-start off -c 24 --section LaunchStats --section Occupancy --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats"
if ! step ncu 80 $NCU --metrics $M -o "$O/bwd" -f python3 ncu-bwd.py bvar --variants nored; then
  step ncu2 60 $NCU -o "$O/bwd" -f python3 ncu-bwd.py bvar || step kineto 30 python3 ncu-bwd.py bvar --kineto
fi
if [ -f "$O/bwd.ncu-rep" ]; then
  ncu -i "$O/bwd.ncu-rep" --page details > "$O/ncu-details.txt" 2>&1
  ncu -i "$O/bwd.ncu-rep" --page raw --csv > "$O/ncu-raw.csv" 2>&1
fi
step bench 50 python3 -m flash_mlir.bench --mode backward --bundles "$here/bvar" --head-dims 128 --seqlens 2048,8192 --rounds 3 --rep-ms 30 --variants --json "$O/bench-backward.json"
grep ^backward "$O/bench.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"
