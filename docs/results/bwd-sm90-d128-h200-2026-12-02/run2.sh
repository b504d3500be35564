#!/usr/bin/env bash
# hB run 2: (1) waves.py: ours vs cuDNN with a whole or a partial last wave;
# (2) ncu's SourceCounters (SASS with executed-instruction counts) of cuDNN's
# main backward kernel at D = 128 and 256 (N = 8192, non-causal), exported as CSV.
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=${OUT:-$here/out}; mkdir -p "$O"
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"; return $rc; }
step waves 20 python3 waves.py bvar; cat "$O/waves.log" | grep ^D= | tee -a "$O/steps.txt"
step ncusrc 28 ncu --clock-control none --profile-from-start off -k regex:bprop -c 2 --section SourceCounters -o "$O/src" -f python3 ncu-bwd.py bvar --impls cudnn
if [ -f "$O/src.ncu-rep" ]; then
  timeout 10 ncu -i "$O/src.ncu-rep" --page source --csv --print-source sass > "$O/cudnn-sass.csv" 2>&1 || \
  timeout 10 ncu -i "$O/src.ncu-rep" --page source --csv > "$O/cudnn-sass.csv" 2>&1
  ls -la "$O" >> "$O/steps.txt"
fi
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"
