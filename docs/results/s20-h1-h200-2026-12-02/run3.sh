#!/bin/bash
# Third H200 run of branch s20-h1 (staged by stage3.sh): timing only.
ST=build/s20-h1-run
export PYTHONPATH=$ST/python FLASH_RUNTIME_LIB=$ST/lib/libflash_runtime.so
T=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $T/$name.log 2>&1; echo "$name rc=$? $(( $(date +%s) - t0 )) s" | tee -a $T/steps.txt; tar czf $OUT/res.tgz -C $T .; }
step bench 120 python3 -m flash_mlir.bench --mode backward --bundles $ST/bench --head-dims 128 --seqlens 512,2048,8192 --rounds 3 --rep-ms 30 --variants --json $T/bench.json
cat $T/steps.txt
