#!/usr/bin/env bash
# H3 (branch decode-tile-8): the rest of the shipped build's checks, which
# run2.sh's 42 s limit cut off (ship90: 57 of 66 run, all passed; ship80
# --quick: 51 of 57 run, all passed). Needs bundles2.tgz from run2.sh's
# staging. About 60-80 s on the H200.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/tmp/h3res3; rm -rf $res; mkdir -p $res
export PYTHONUNBUFFERED=1 PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so
mkdir -p $here/bundles2; tar xzf $here/bundles2.tgz -C $here/bundles2
B=$here/bundles2
c=${CHECK_LIMIT:-150}
timeout $c python3 -m flash_mlir.tools.decode_check --bundles $B/ship90 --json $res/check-ship90.json > $res/check-ship90.log 2>&1 &
timeout $c python3 -m flash_mlir.tools.decode_check --bundles $B/ship80 --quick --json $res/check-ship80.json > $res/check-ship80.log 2>&1 &
wait
for f in $res/*.log; do echo "=== $(basename $f)"; grep -E "passed|^FAIL|Error" $f | tail -n 4; done | tee $res/summary3.log
tar czf $OUT/res3.tgz -C $res .
