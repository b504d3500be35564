#!/usr/bin/env bash
# Stages run 4 of the fifty-third session (README.md): new90 (every sm_90a decode plan of
# branch s53-evict-first's flash-opt, 8b79797: the K/V copies under an evict-first L2
# policy, the policy a constant, kL2EvictFirstPolicy, instead of createpolicy), main90
# (stage1.sh's) and cache-policy.py.
#   bash docs/results/lead-2026-12-06-s53/stage4.sh
#   run(command="tar xJf build/r53/s4.tar.xz -C build/r53 && bash build/r53/s4/run4.sh",
#       carry=["build/r53/s4.tar.xz"])
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-06-s53
out=build/r53/s4
export PYTHONPATH=$PWD/python
rm -rf "$out" "$out.tar.xz"
mkdir -p "$out"
cp -r build/r53/s1/main90 "$out/main90"
cp "$here/cache-policy.py" "$out/"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/new90" \
  --flash-opt build/bin/flash-opt > /dev/null
bash scripts/bench/pack-stage.sh "$out" "$here"
