#!/usr/bin/env bash
# H2 (nineteenth session, issue 17 item 5, branch decode-long-9), run 2:
# where the time after the K/V stream goes. Staged by stage2.sh as
# build/decode-long-9-run/ (this script, python/, lib/, bundles/, ncu_driver2.py).
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h2res2; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
B=$here/bundles
pack() { tar czf $OUT/res.tgz -C $res . 2>/dev/null; }
py=python3
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "=== bench ($(date -u +%T))"
timeout 100 $py -m flash_mlir.tools.decode_bench --bundles $B/base90 \
  --variant nocount=$B/nocount90 --variant nomerge=$B/nomerge90 --variant t1s6=$B/t1s6_90 \
  --gqa 8/1,32/8 --rows 1x8192,1x32768,1x131072,64x1024,128x2048,8x32768 --rounds 3 \
  --json $res/bench2.json > $res/bench2.log 2>&1
echo "=== bench rc=$? at $(( $(date +%s) - t0 ))s"; pack
specs="main8k=$B/base90@1x8192 main32k=$B/base90@1x32768 main128k=$B/base90@1x131072 \
  mainB8=$B/base90@8x32768 mainB64=$B/base90@64x1024 nocount128k=$B/nocount90@1x131072 \
  nomerge128k=$B/nomerge90@1x131072 t1s6_128k=$B/t1s6_90@1x131072 nocount8k=$B/nocount90@1x8192 \
  nomerge8k=$B/nomerge90@1x8192"
timeout 90 ncu --clock-control none -k regex:"flash_decode_split" --section PmSampling \
  -o $res/pm2 $py $here/ncu_driver2.py $specs > $res/pm2.log 2>&1
echo "=== pm2 rc=$? at $(( $(date +%s) - t0 ))s"
timeout 25 ncu -i $res/pm2.ncu-rep --page raw --csv --print-metric-instances values > $res/pm2.csv 2>&1
echo "=== pm2 csv rc=$? at $(( $(date +%s) - t0 ))s"; rm -f $res/pm2.ncu-rep; pack
timeout 60 ncu --clock-control none -k regex:"flash_decode_split" --section PmSampling \
  --pm-sampling-interval 500 -o $res/pm3 $py $here/ncu_driver2.py \
  main8k=$B/base90@1x8192 main128k=$B/base90@1x131072 > $res/pm3.log 2>&1
echo "=== pm3 rc=$? at $(( $(date +%s) - t0 ))s"
timeout 20 ncu -i $res/pm3.ncu-rep --page raw --csv --print-metric-instances values > $res/pm3.csv 2>&1
rm -f $res/pm3.ncu-rep
grep -E "^  (split_kv|SDPA cuDNN)|^GQA|ceiling" $res/bench2.log | head -120
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary2.log
pack
