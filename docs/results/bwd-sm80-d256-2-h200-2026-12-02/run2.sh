#!/usr/bin/env bash
# Second call: only the bench (run 1's bench had no forward bundle for O and LSE).
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=${OUT:-$here/out}; W=$here/res2; mkdir -p "$O" "$W"
export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
{ date -u +%FT%TZ; ls bench; } > "$W/env.txt" 2>&1
timeout 80 python3 -m flash_mlir.bench --mode backward --bundles bench --head-dims 256 \
  --seqlens 512,1024,2048,4096,8192,16384 --rounds 3 --variants --json "$W/bench.json" > "$W/bench.log" 2>&1
echo "bench rc=$?" >> "$W/env.txt"
tar -C "$here" -cf "$O/results2.tar" res2
grep ^backward "$W/bench.log" | sed 's/err.*//'
