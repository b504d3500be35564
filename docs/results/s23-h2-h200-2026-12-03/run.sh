#!/usr/bin/env bash
# H2 (twenty-third session, issue 17 item 5), run 1: the cost of scattered pages apart
# from the paged kernel's own. main90 and mainb90 = main ffd6bf8's sm_90a decode
# bundles (bf16 D = 128), two copies; every paged form timed with its pages shuffled
# (today's table) and sequential (each sequence's pages consecutive, in key order), in
# the same interleaved rounds (decode_bench --page-order shuffled,sequential).
# Bench 2: diagnostics on sequential pages only (stage.sh: L = no loop lookups, LS = and
# no prologue table loads, LSN = and no seq_lens load), main in a variant slot.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h2res; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
t0=$(date +%s)
mkdir -p $here/b; tar xzf $here/bundles.tgz -C $here/b
B=$here/b
pack() { tar czf $OUT/res.tgz -C $res . 2>/dev/null; }
py=python3
{
date -u +%FT%TZ
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
$py -c "import torch; print('torch', torch.__version__)"
echo "=== bench 1 ($(date -u +%T))"
timeout ${BENCH_LIMIT:-110} $py -m flash_mlir.tools.decode_bench --bundles $B/main90 \
  --variant again=$B/mainb90 --page-order shuffled,sequential --gqa 8/1,32/8 \
  --rows 1x8192,1x32768,1x131072,64x1024,64x8192,128x2048 --rounds 5 \
  --json $res/bench.json > $res/bench.log 2>&1
echo "=== bench 1 rc=$? at $(( $(date +%s) - t0 ))s"; pack
echo "=== bench 2, diagnostics, sequential pages ($(date -u +%T))"
timeout ${BENCH2_LIMIT:-70} $py -m flash_mlir.tools.decode_bench --bundles $B/mainb90 \
  --variant main=$B/main90 --variant L=$B/L90 --variant LS=$B/LS90 --variant LSN=$B/LSN90 \
  --page-order sequential --gqa 8/1 --rows 1x32768,1x131072,8x32768,64x1024,128x2048 --rounds 7 \
  --json $res/bench-diag.json > $res/bench-diag.log 2>&1
echo "=== bench 2 rc=$? at $(( $(date +%s) - t0 ))s"; pack
echo "=== bench 3, the GQA 8/1 gap rows, 9 rounds ($(date -u +%T))"
timeout ${BENCH3_LIMIT:-50} $py -m flash_mlir.tools.decode_bench --bundles $B/main90 \
  --variant again=$B/mainb90 --page-order shuffled,sequential --gqa 8/1 \
  --rows 1x32768,64x1024,128x2048 --rounds 9 \
  --json $res/bench-gap.json > $res/bench-gap.log 2>&1
echo "=== bench 3 rc=$? at $(( $(date +%s) - t0 ))s"; pack
echo "=== ncu: contiguous / shuffled / sequential S=16, GQA 8/1 ($(date -u +%T))"
(which ncu && ncu --version) 2>&1 | tail -2
timeout ${NCU_LIMIT:-100} ncu --clock-control none --nvtx --print-nvtx-rename kernel -k regex:"flash_decode" \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
  --metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,gpu__time_duration.sum \
  $py $here/ncu_pages.py $B/main90 64x1024 128x2048 > $res/ncu.log 2>&1
echo "=== ncu rc=$? at $(( $(date +%s) - t0 ))s"; pack
$py $here/tables.py pages $res/bench.json $res/bench-gap.json > $res/tables.txt 2>&1
$py $here/tables.py diag $res/bench-diag.json >> $res/tables.txt 2>&1
cat $res/tables.txt
grep -E "flash_decode|Duration|DRAM Throughput|dram__bytes|hit_rate|sectors_srcunit|L2 Hit|Mem Busy|Max Bandwidth" $res/ncu.log | head -80
echo "total $(( $(date +%s) - t0 ))s"
} 2>&1 | tee $res/summary.log
pack
