#!/usr/bin/env bash
# Stages run 3 of the forty-eighth session (README.md), on branch s48-cluster: the fused split
# kernels in clusters of a sequence's two parts merging through distributed shared memory
# (FLASH_EXP_DECODE_CLUSTER=1; `cl`) against main's plans (`base`, the same compiler without it:
# its cubins are cmp-identical to main 98fa1d3's).
#   run(command="tar xJf build/r48/s3.tar.xz -C build/r48 && bash build/r48/s3/run3.sh",
#       carry=["build/r48/s3.tar.xz"])
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
out=build/r48/s3
export PYTHONPATH=$PWD/python
C="python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --dtypes bf16 --head-dims 128"
rm -rf "$out"
env -u FLASH_EXP_DECODE_CLUSTER $C --out "$out/base" > /dev/null
FLASH_EXP_DECODE_CLUSTER=1 $C --out "$out/cl" > /dev/null
bash scripts/bench/pack-stage.sh "$out" docs/results/lead-2026-12-06-s48
