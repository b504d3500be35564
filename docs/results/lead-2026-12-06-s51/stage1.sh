#!/usr/bin/env bash
# Stages runs 1-3 of the fifty-first session (README.md): the fiftieth session's staging of its
# run 3 (../lead-2026-12-06-s50/stage3.sh: FIT the flash-opt of branch s50-fit b533034, MAIN
# main 96b66c9's) with this folder's run1.sh, run2.sh, run3.sh and pair.py added.
#   FIT=/tmp/flash-opt-fit MAIN=/tmp/flash-opt-s50 bash docs/results/lead-2026-12-06-s51/stage1.sh
#   run(command="tar xJf build/r51/s1.tar.xz -C build/r51 && bash build/r51/s1/run1.sh",
#       carry=["build/r51/s1.tar.xz"])
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-06-s51
bash docs/results/lead-2026-12-06-s50/stage3.sh
rm -rf build/r51
mkdir -p build/r51
cp -a build/r50/s2 build/r51/s1
rm -f build/r51/s1/run3.sh
cp "$here/run1.sh" "$here/run2.sh" "$here/run3.sh" "$here/pair.py" build/r51/s1/
(cd build/r51 && tar cJf s1.tar.xz s1)
