#!/usr/bin/env bash
# The common end of a measuring run's stage script (by hand, never in CI): with the
# run's bundle folders already compiled into OUT (a folder under build/), copy in what
# the GPU machine needs beside them -- python/, the runtime library, device-run.sh and
# the run scripts run[0-9].sh of the results folder RESULTS -- drop the bundles' .mlir
# and .ptx (the cubins and plan JSON are what runs), and pack OUT as OUT.tar.xz for the
# device tool's carry:
#
#   bash scripts/bench/pack-stage.sh build/r47/s1 docs/results/lead-2026-12-06-s47
#   run(command="tar xJf build/r47/s1.tar.xz -C build/r47 && bash build/r47/s1/run1.sh",
#       carry=["build/r47/s1.tar.xz"])
# OUT and RESULTS are paths from the repository's root, where the script runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ $# -ne 2 ] || [ ! -d "$1" ] || [ ! -d "$2" ]; then
  echo "usage: pack-stage.sh OUT RESULTS (existing folders, from the repository's root)" >&2
  exit 2
fi
out=${1%/}
here=${2%/}
mkdir -p "$out/lib"
rm -rf "$out/python"
cp -r python "$out/python"
cp build/lib/libflash_runtime.so "$out/lib/"
cp scripts/bench/device-run.sh "$here"/run[0-9].sh "$out/"
find "$out" -maxdepth 2 \( -name '*.mlir' -o -name '*.ptx' \) -path "$out/*/*" -delete
find "$out" -name __pycache__ -prune -exec rm -rf {} +
tar cJf "$out.tar.xz" -C "$(dirname "$out")" "$(basename "$out")"
du -sh "$out" "$out.tar.xz"
