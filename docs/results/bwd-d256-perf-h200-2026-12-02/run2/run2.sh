#!/usr/bin/env bash
# h3 run 2: does the D=256 backward's time follow the bytes of its dQ
# reductions? Timing-only variants of the new kernel that skip the last 1 or 2
# of each step's 4 slices of dQ reductions (red75, red50: wrong dQ), none
# (nored), and main's kernel (main), in the same rounds as FA2 and cuDNN.
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=${OUT:-$here/out}; mkdir -p "$O"
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
timeout 100 python3 -m flash_mlir.bench --mode backward --bundles "$here/bvar2" --head-dims 256 --causal no --seqlens 4096,16384 --rounds 3 --rep-ms 30 --variants --json "$O/bench-bytes.json" > "$O/bench-bytes.log" 2>&1
echo "bench rc=$?"; grep ^backward "$O/bench-bytes.log" | sed 's/err.*//'
