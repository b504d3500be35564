#!/usr/bin/env bash
# The nocount split kernel (H2's nocount90 bundle: partials written, no count,
# no merge) with `griddepcontrol.launch_dependents;` as its first instruction,
# re-assembled with ptxas (PTX ISA 8.0, sm_90a). Build machine.
set -eu
src=/work/main/build/decode-long-9-run/bundles/nocount90/flash_decode_split_sm_90a_bf16_d128.ptx
out=${1:-.}
awk '{print} /^\t\.shared \.align 16 \.b8 __dynamic_shmem__0;/ && !done {print "\tgriddepcontrol.launch_dependents;"; done=1}' $src > $out/split_nocount_trigger.ptx
grep -c griddepcontrol $out/split_nocount_trigger.ptx
/usr/local/cuda/bin/ptxas -arch=sm_90a -v -o $out/split_nocount_trigger.sm_90a.cubin $out/split_nocount_trigger.ptx 2>&1 | grep -i "registers\|spill"
/usr/local/cuda/bin/ptxas -arch=sm_90a -v -o /tmp/h4-nocount-plain.cubin $src 2>&1 | grep -i "registers\|spill"
