#!/usr/bin/env bash
# s42 run 4: the forward's host time per call (scripts/bench/attention-host-time.py,
# its default shape B=1 H=8 N=128 D=64 bf16 causal) with main's runtime (lib) and the
# new one (libnew), alternating processes, on build/r42/fwd (run3.sh).
#   run(command="bash build/r41/run4b.sh", carry=["build/r41", "build/r42"])
. "$(dirname "$0")/device-run.sh"
R=$S/../..
HT="python3 $R/scripts/bench/attention-host-time.py $S/../r42/fwd"
for i in 1 2; do
  FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so step fmain$i 60 $HT --label main$i --json $O/fmain$i.json
  FLASH_RUNTIME_LIB=$S/libnew/libflash_runtime.so step fnew$i 60 $HT --label new$i --json $O/fnew$i.json
done
finish
