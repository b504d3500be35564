#!/usr/bin/env bash
# Lead s25, run 4: where the backward bench's round-to-round spread comes from. The GPU's SM clock,
# power and throttle reasons (nvidia-smi dmon, one sample a second; -q before and after) while
# bench times main's D = 128 non-causal rows (N = 1k, 2k) for 25 rounds of 25 ms, then 60 rounds
# of 5 ms (more, shorter measurements), and D = 64 non-causal N = 1k the same way.
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
export PYTHONPATH=$S/python FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; cp "$O/steps.txt" "$OUT/" 2>/dev/null; }
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  echo "$name start $(date -u +%T.%N | cut -c1-12)" >> "$O/marks.txt"
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name end $(date -u +%T.%N | cut -c1-12)" >> "$O/marks.txt"
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-200)" | tee -a "$O/steps.txt"; save; }
nvidia-smi -q -d PERFORMANCE,CLOCK,POWER,TEMPERATURE > $O/smi-before.txt 2>&1
nvidia-smi dmon -s pc -d 1 -o T > $O/dmon.txt 2>&1 & DMON=$!
sleep 2
B="--mode backward --bundles b90 --causal no"
step r25 120 python3 timed_bench.py  # run4-timed_bench.py here $O/r25-marks.json $B --head-dims 128 --seqlens 1024,2048 --rounds 25 --rep-ms 25 --json $O/r25.json
step r5 120 python3 timed_bench.py  # run4-timed_bench.py here $O/r5-marks.json $B --head-dims 128 --seqlens 1024,2048 --rounds 60 --rep-ms 5 --json $O/r5.json
step d64 90 python3 timed_bench.py  # run4-timed_bench.py here $O/d64-marks.json $B --head-dims 64 --seqlens 1024 --rounds 40 --rep-ms 10 --json $O/d64.json
sleep 2; kill $DMON 2>/dev/null
nvidia-smi -q -d PERFORMANCE,CLOCK,POWER,TEMPERATURE > $O/smi-after.txt 2>&1
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
