#!/usr/bin/env bash
# Stages the forty-seventh session's prefetch experiment into build/r47/s1 and packs it
# as build/r47/s1.tar.xz. Needs build/ built from branch s47-prefetch (the experiment's
# FLASH_EXP_PAGE_PREFETCH switch):
#   run(command="tar xJf build/r47/s1.tar.xz -C build/r47 && bash build/r47/s1/run1.sh",
#       carry=["build/r47/s1.tar.xz"])
# base: the bf16 D = 128 sm_90a decode plans as main builds them; pfN: the same with
# FLASH_EXP_PAGE_PREFETCH=N (each block bulk-prefetches into the L2 its slice of every
# kv-head's rows of the pages of the tile N tiles past the one it issues).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-06-s47
out=build/r47/s1
export PYTHONPATH=$PWD/python
C="python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --dtypes bf16 --head-dims 128"
rm -rf "$out"
env -u FLASH_EXP_PAGE_PREFETCH $C --out "$out/base" > /dev/null
for d in ${DISTANCES:-0 2 4}; do FLASH_EXP_PAGE_PREFETCH=$d $C --out "$out/pf$d" > /dev/null; done
bash scripts/bench/pack-stage.sh "$out" "$here"
