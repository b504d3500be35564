#!/usr/bin/env bash
# s42 run 2: the runtime's launch without copying every planned kernel's launch
# (lib/Runtime/Runtime.cpp: planCall returns the planned call, the launcher copies
# only the launched kernels' used arguments). Host time per call
# (scripts/bench/decode-host-time.py) with main's runtime (lib) and the new one
# (libnew) in alternating processes, same python/ and plans (build/r41 as run 1 staged
# it, plus libnew/ and this script); then the new runtime's GPU checks: decode_check on
# every sm_90a decode plan, and the serving loop at batch 4 and 8.
#   cp build/lib/libflash_runtime.so build/r41/libnew/ && cp docs/results/lead-2026-12-05-s42/run2.sh build/r41/
#   run(command="bash build/r41/run2.sh", carry=["build/r41"])
. "$(dirname "$0")/device-run.sh"
R=$S/../..
HT="python3 $R/scripts/bench/decode-host-time.py $S/pdl"
for i in 1 2 3; do
  FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so step host-main$i 60 $HT --label main$i --json $O/host-main$i.json
  FLASH_RUNTIME_LIB=$S/libnew/libflash_runtime.so step host-new$i 60 $HT --label new$i --json $O/host-new$i.json
done
export FLASH_RUNTIME_LIB=$S/libnew/libflash_runtime.so
step check 200 python3 -m flash_mlir.tools.decode_check --bundles $S/pdl --json $O/check.json
for bs in 4 8; do
  step serve$bs 120 python3 $R/scripts/gpu/serve-check.py --bundles $S/pdl --batch $bs --json $O/serve$bs.json
done
finish
