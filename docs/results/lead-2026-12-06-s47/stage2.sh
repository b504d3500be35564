#!/usr/bin/env bash
# Stages run 2 of the forty-seventh session (README.md): the per-line form of the page-slice
# prefetch (FLASH_EXP_PAGE_PREFETCH_LINES=1: 128-byte prefetch.global.L2 by every thread
# instead of cp.async.bulk.prefetch by 2-8 threads) at distances 0 and 2, against main's plans.
#   run(command="tar xJf build/r47/s2.tar.xz -C build/r47 && bash build/r47/s2/run2.sh",
#       carry=["build/r47/s2.tar.xz"])
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-06-s47
out=build/r47/s2
export PYTHONPATH=$PWD/python
C="python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --dtypes bf16 --head-dims 128"
rm -rf "$out"
env -u FLASH_EXP_PAGE_PREFETCH -u FLASH_EXP_PAGE_PREFETCH_LINES $C --out "$out/base" > /dev/null
for d in 0 2; do
  FLASH_EXP_PAGE_PREFETCH=$d FLASH_EXP_PAGE_PREFETCH_LINES=1 $C --out "$out/pfl$d" > /dev/null
done
bash scripts/bench/pack-stage.sh "$out" "$here"
