#!/usr/bin/env bash
# H200 side (helper H4): the timing run, then memcheck and racecheck of the
# split + merge (PDL) pair on two rows. Results in $OUT/res.tgz.
set -u
S=$(cd "$(dirname "$0")"; pwd)
T=$(mktemp -d)
export PYTHONPATH=$S/python FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so
nvidia-smi > $T/nvidia-smi.txt 2>&1
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 85 python3 $S/pdl_bench.py --stage $S --json $T/bench.json > $T/bench.log 2>&1; echo "bench rc=$?" >> $T/summary.log
cp $T/bench.log $OUT/ 2>/dev/null
timeout 30 $SAN --tool memcheck python3 $S/pdl_bench.py --stage $S --rows 1x8192,64x1024 --gqa 8/1 \
  --check-only --impls "s32 PDL" > $T/memcheck.log 2>&1; echo "memcheck rc=$?" >> $T/summary.log
timeout 25 $SAN --tool racecheck python3 $S/pdl_bench.py --stage $S --rows 1x8192 --gqa 8/1 \
  --check-only --impls "s32 PDL" > $T/racecheck.log 2>&1; echo "racecheck rc=$?" >> $T/summary.log
tail -3 $T/memcheck.log $T/racecheck.log >> $T/summary.log
cp $T/summary.log $OUT/
tar czf $OUT/res.tgz -C $T .
