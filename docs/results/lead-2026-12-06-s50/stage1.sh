#!/usr/bin/env bash
# Stages runs 1 and 2 of the fiftieth session (README.md): main90 (every sm_90a decode plan of
# main 96b66c9; the run used the forty-ninth session's build/r49/s1/main90, the same files:
# no file under lib/ or include/ changed since e29c956) and, for run 2, the bf16 D = 256
# non-causal sm_90a plans of two variants: v3_90 (flash-opt with v3.diff) and r1_90 (r1.diff).
# MAIN is 96b66c9's flash-opt, V3 and R1 those builds with the diffs applied (git apply,
# scripts/build.sh, copy build/bin/flash-opt).
#   MAIN=/tmp/flash-opt-s50 V3=/tmp/flash-opt-v3 R1=/tmp/flash-opt-r1 bash docs/results/lead-2026-12-06-s50/stage1.sh
#   run(command="tar xJf build/r50/s1.tar.xz -C build/r50 && bash build/r50/s1/run1.sh", carry=["build/r50/s1.tar.xz"])
#   run(command="tar xJf build/r50/s1.tar.xz -C build/r50 && bash build/r50/s1/run2.sh", carry=["build/r50/s1.tar.xz"])
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
out=build/r50/s1
export PYTHONPATH=$PWD/python
rm -rf "$out"
mkdir -p "$out"
C="python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a"
$C --out "$out/main90" --flash-opt "$MAIN" > /dev/null
V="--dtypes bf16 --head-dims 256 --causal no --lse no"
$C $V --out "$out/v3_90" --flash-opt "$V3" > /dev/null
$C $V --out "$out/r1_90" --flash-opt "$R1" > /dev/null
bash scripts/bench/pack-stage.sh "$out" docs/results/lead-2026-12-06-s50
