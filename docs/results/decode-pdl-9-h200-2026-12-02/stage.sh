#!/usr/bin/env bash
# Build-machine side (helper H4): stages the H200 run under
# /work/main/build/decode-pdl-9-run/. The split kernels are H2's nocount90
# build (docs/results/decode-long-9-h200-2026-12-02, variants.diff, stage.sh:
# f4eef72 + FLASH_DECODE_EXP=nocount: partials written, no count, no merge),
# assembled here with ptxas 13.0 as is and with griddepcontrol.launch_dependents
# added at the kernel's start (mk_trigger.sh). main90: main f4eef72's split
# bundle (/work/baseline-new/sm90a-dec). python/ + lib/: the package and
# runtime H2 staged with it (main's runtime; decode_bench's graph_time).
set -eu
here=$(cd "$(dirname "$0")"; pwd)
src=/work/main/build/decode-long-9-run
st=/work/main/build/decode-pdl-9-run
rm -rf $st; mkdir -p $st/cubins $st/bundles/main90 $st/lib
cp -r $src/python $st/python; find $st/python -name __pycache__ -prune -exec rm -rf {} +
cp $src/lib/libflash_runtime.so $st/lib/
cp /work/baseline-new/sm90a-dec/flash_decode_split_sm_90a_bf16_d128.{json,ptx,sm_90a.cubin} $st/bundles/main90/
bash $here/mk_trigger.sh $st/cubins
rm $st/cubins/split_nocount_trigger.ptx
/usr/local/cuda/bin/ptxas -arch=sm_90a -o $st/cubins/split_nocount.sm_90a.cubin \
  $src/bundles/nocount90/flash_decode_split_sm_90a_bf16_d128.ptx
/usr/local/cuda/bin/nvcc -arch=sm_90a -cubin -O3 -Xptxas -v -o $st/cubins/merge.sm_90a.cubin $here/merge.cu 2>&1 | grep -i "registers\|spill"
cp $here/pdl_bench.py $here/run.sh $st/
du -sh $st
