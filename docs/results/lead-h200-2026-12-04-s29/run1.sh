#!/usr/bin/env bash
# Lead's H200 run 1, twenty-ninth session (issue 17, item 5): where the one-work-unit rows'
# time goes (GQA 8/1 B = 1). Variants of main's bf16 D = 128 sm_90a decode bundles:
# nomma (FLASH_DECODE_EXP=nomma: the loop's MMAs and softmax left out), noload (no K/V
# copies), none (both); -nm: the plan's merge kernel removed from the JSON (split only).
# Timing only: the variants' results are wrong.
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
t0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; cp "$O/steps.txt" "$OUT/" 2>/dev/null; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'; } > "$O/env.txt" 2>&1
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"; save; }
V=""; for v in main-nm nomma nomma-nm noload noload-nm none none-nm; do V="$V --variant $v=$S/$v"; done
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1 --rounds 5 --rows 1x8192,1x32768,1x131072"
step warm 150 $DB --bundles $S/main $V --json $O/warm.json
step cold 150 $DB --cold --bundles $S/main $V --json $O/cold.json
NCU="ncu --clock-control none --target-processes all -k regex:flash_decode"
step ncu-sol 120 $NCU --section SpeedOfLight --section LaunchStats --section Occupancy python3 prof.py $S/main 1x131072 1x8192
step ncu-pm 120 $NCU --section PmSampling --metrics gpu__time_duration.sum -o $O/pm python3 prof.py $S/main 1x131072
step pm-csv 60 ncu --import $O/pm.ncu-rep --page raw --csv
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
