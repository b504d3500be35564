#!/usr/bin/env bash
# Stages run 3 of the fifty-third session (README.md): new90 (every sm_90a decode plan of
# branch s53-evict-first's flash-opt in its second form: 64-bit shared addresses, still
# createpolicy; not committed), main90 (stage1.sh's) and a32 (run 2's new90, stage2.sh's, whose
# copies took 32-bit shared addresses; only its bf16 D = 64 causal LSE paged plan).
#   bash docs/results/lead-2026-12-06-s53/stage3.sh
#   run(command="tar xJf build/r53/s3.tar.xz -C build/r53 && bash build/r53/s3/run3.sh",
#       carry=["build/r53/s3.tar.xz"])
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-06-s53
out=build/r53/s3
export PYTHONPATH=$PWD/python
rm -rf "$out" "$out.tar.xz"
mkdir -p "$out/a32"
cp -r build/r53/s1/main90 "$out/main90"
cp build/r53/s2/new90/flash_decode_paged_sm_90a_bf16_d64_causal_lse.* "$out/a32/"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/new90" \
  --flash-opt build/bin/flash-opt > /dev/null
bash scripts/bench/pack-stage.sh "$out" "$here"
