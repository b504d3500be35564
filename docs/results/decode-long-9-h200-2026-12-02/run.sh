#!/usr/bin/env bash
# H2 (nineteenth session, issue 17 item 5, branch decode-long-9), run 1:
# bound the GQA 8/1 B=1 L=128k row. Staged by stage.sh as
# build/decode-long-9-run/ (this script, python/, lib/, bundles/, sums.py,
# ncu_driver.py). base90 = main f4eef72's flash-opt; the others from the
# temporary switch (stage.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h2res; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
B=$here/bundles
pack() { tar czf $OUT/res.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
(which ncu && ncu --version) 2>&1 | tail -2
echo "=== bench ($(date -u +%T))"
timeout 150 $py -m flash_mlir.tools.decode_bench --bundles $B/base90 \
  --variant nocount=$B/nocount90 --variant st2=$B/st2_90 --variant t1s6=$B/t1s6_90 \
  --variant t4=$B/t4_90 --variant t3s2=$B/t3s2_90 --variant pf2=$B/pf2_90 --variant pf4=$B/pf4_90 \
  --gqa 8/1,32/8 --rows 1x8192,1x32768,1x131072,64x1024,128x2048,8x32768 --rounds 3 \
  --json $res/bench.json > $res/bench.log 2>&1
echo "=== bench rc=$? at $(( $(date +%s) - t0 ))s"; pack
timeout 60 $py $here/sums.py > $res/sums.log 2>&1
echo "=== sums rc=$? at $(( $(date +%s) - t0 ))s"; pack
timeout 80 ncu --clock-control none -k regex:"flash_decode_split|reduce" \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  --section MemoryWorkloadAnalysis --section SchedulerStats \
  $py $here/ncu_driver.py 131072 main=$B/base90 nocount=$B/nocount90 t1s6=$B/t1s6_90 \
  > $res/ncu.log 2>&1
echo "=== ncu rc=$? at $(( $(date +%s) - t0 ))s"; pack
timeout 45 ncu --clock-control none -k regex:"flash_decode_split|reduce" --section PmSampling \
  -o $res/pm $py $here/ncu_driver.py 131072 main=$B/base90 > $res/pm.log 2>&1
echo "=== pm rc=$? at $(( $(date +%s) - t0 ))s"
timeout 20 ncu -i $res/pm.ncu-rep --page raw --csv --print-metric-instances values > $res/pm.csv 2>&1
echo "=== pm csv rc=$? at $(( $(date +%s) - t0 ))s"
grep -E "^  (split_kv|paged|SDPA)|^GQA|ceiling" $res/bench.log | head -400
cat $res/sums.log
grep -E "split|reduce|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Theoretical Occ|Block Limit|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible|Eligible Warps" $res/ncu.log | head -200
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
