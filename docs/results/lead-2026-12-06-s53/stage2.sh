#!/usr/bin/env bash
# Stages run 2 of the fifty-third session (README.md): new90, every sm_90a decode plan of
# the flash-opt of branch s53-evict-first in its first form (the split kernels' K/V copies
# under an evict-first L2 policy, decodeKVEvictFirst, inline PTX with 32-bit shared
# addresses and createpolicy; not committed: the branch holds the fourth form), beside
# main90 (every sm_90a decode plan of main 73e7533, staged by stage1.sh: run it first).
#   bash docs/results/lead-2026-12-06-s53/stage2.sh
#   run(command="tar xJf build/r53/s2.tar.xz -C build/r53 && bash build/r53/s2/run2.sh",
#       carry=["build/r53/s2.tar.xz"], kind="nvidia-h100-x1")
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-06-s53
out=build/r53/s2
export PYTHONPATH=$PWD/python
rm -rf "$out" "$out.tar.xz"
mkdir -p "$out"
cp -r build/r53/s1/main90 "$out/main90"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/new90" \
  --flash-opt build/bin/flash-opt > /dev/null
bash scripts/bench/pack-stage.sh "$out" "$here"
