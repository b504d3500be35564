#!/usr/bin/env bash
# How hD's one H200 run was staged (build machine, branch sm80-strides 41341f5):
# new  = this branch's sm_80 plans, forward and backward, with sm_90 cubins;
# base = main 4431325's (its flash-opt) bf16 D 64/128 sm_80 forward and
#        backward plans with sm_90 cubins, for the benchmark.
set -euo pipefail
S=/work/main/build/hD-run
python3 -m flash_mlir.compile --out /tmp/hD/new --arch sm_80 --cubin-archs sm_80,sm_90 \
  --ops forward,backward --head-dims 64,128,256
python3 -m flash_mlir.compile --out /tmp/hD/base-fwd --arch sm_80 --cubin-archs sm_80,sm_90 \
  --ops forward --dtypes bf16 --head-dims 64,128 --flash-opt /work/baseline/flash-opt-4431325
python3 -m flash_mlir.compile --out /tmp/hD/base-bwd --arch sm_80 --cubin-archs sm_80,sm_90 \
  --ops backward --dtypes bf16 --head-dims 64,128 --deterministic no \
  --flash-opt /work/baseline/flash-opt-4431325
mkdir -p $S/lib $S/new $S/base
cp -r python $S/python; cp build/lib/libflash_runtime.so $S/lib/
cp scripts/gpu/one-launch-profile.py docs/results/sm80-strides-h200-2026-12-02/run.sh $S/
cp /tmp/hD/new/*.{json,ptx,cubin} $S/new/
cp /tmp/hD/base-fwd/*.{json,ptx,cubin} /tmp/hD/base-bwd/*.{json,ptx,cubin} $S/base/
# then, with the device tool: cd build/hD-run && bash run.sh   (carry build/hD-run)
