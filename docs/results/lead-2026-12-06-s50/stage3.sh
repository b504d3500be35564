#!/usr/bin/env bash
# Stages run 3 of the fiftieth session (README.md): FIT is a flash-opt with the change
# (splitKVTwoBlocksFit), MAIN main 96b66c9's. fit90: every sm_90a decode plan; fit80s:
# every sm_80 plan as sm_90 cubins; main80s: main's sm_80 bf16 D = 256 plans likewise;
# main90 as in run 1.
#   FIT=/tmp/flash-opt-fit MAIN=/tmp/flash-opt-s50 bash docs/results/lead-2026-12-06-s50/stage3.sh
#   run(command="tar xJf build/r50/s2.tar.xz -C build/r50 && bash build/r50/s2/run3.sh",
#       carry=["build/r50/s2.tar.xz"])
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
out=build/r50/s2
export PYTHONPATH=$PWD/python
rm -rf "$out"
mkdir -p "$out"
C="python3 -m flash_mlir.compile --ops split_kv,paged"
$C --arch sm_90a --out "$out/fit90" --flash-opt "$FIT" > /dev/null
$C --arch sm_80 --cubin-archs sm_90 --out "$out/fit80s" --flash-opt "$FIT" > /dev/null
$C --arch sm_80 --cubin-archs sm_90 --dtypes bf16 --head-dims 256 --causal no --lse no \
  --out "$out/main80s" --flash-opt "$MAIN" > /dev/null
$C --arch sm_90a --out "$out/main90" --flash-opt "$MAIN" > /dev/null
bash scripts/bench/pack-stage.sh "$out" docs/results/lead-2026-12-06-s50
