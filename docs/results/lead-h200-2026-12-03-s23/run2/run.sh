#!/usr/bin/env bash
# Lead, twenty-third session: the two helpers' staged runs in one call (each refused for them).
set -u
S=$(cd "$(dirname "$0")" && pwd); R=$S/..; t0=$(date +%s); TOP=$OUT
mkdir -p $TOP/h3 $TOP/h2
( export OUT=$TOP/h3 MIN=1; timeout 200 bash $R/s23-h3-run/run.sh > $TOP/h3/run.out 2>&1 )
echo "h3 $(( $(date +%s) - t0 ))s" >> $TOP/steps.txt
left=$(( 470 - ($(date +%s) - t0) ))
n=$(( left - 150 )); [ $n -gt 70 ] && n=70; [ $n -lt 1 ] && n=1
( export OUT=$TOP/h2 BENCH_LIMIT=100 BENCH2_LIMIT=60 BENCH3_LIMIT=1 NCU_LIMIT=$n; timeout $(( left - 5 )) bash $R/s23-h2-run/run.sh > $TOP/h2/run.out 2>&1 )
echo "h2 $(( $(date +%s) - t0 ))s (ncu limit $n)" >> $TOP/steps.txt
