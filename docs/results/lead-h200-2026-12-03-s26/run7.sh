#!/usr/bin/env bash
# Lead's H200 run 7, twenty-sixth session: decode_bench's new kernel read ceiling (read_ceiling.ptx) next to
# torch's sum, on main's sm_90a bf16 D=128 decode bundles (two rows, three rounds).
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
save() { tar czf "$OUT/res.tgz" -C "$O" .; }
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
timeout 100 python3 -m flash_mlir.tools.decode_bench --bundles $S/new90 --gqa 8/1,32/8 --rows 1x131072,64x1024 --rounds 3 --host-calls 10 --json $O/bench.json > $O/bench.log 2>&1; echo "rc=$?" >> $O/bench.log
save; head -20 $O/bench.log
