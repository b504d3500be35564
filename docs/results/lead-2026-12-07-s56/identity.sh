#!/usr/bin/env bash
# Which PTX files of every bundle `flash_mlir.compile` builds for sm_80, sm_90a and sm_100a
# differ between two flash-opts: the merge's (build/bin/flash-opt) and main's before it
# (OLD: main's flash-opt before it, built in the fifty-second session from 73e7533, whose
# lib/ and include/ main kept up to 55182ca).
#   bash docs/results/lead-2026-12-07-s56/identity.sh /tmp/flash-opt-s52 > docs/results/lead-2026-12-07-s56/identity.log
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
export PYTHONPATH=$PWD/python
old=$1
tmp=$(mktemp -d)
for fo in new:build/bin/flash-opt old:$old; do
  n=${fo%%:*}; f=${fo#*:}
  for a in sm_80 sm_90a sm_100a; do
    python3 -m flash_mlir.compile --arch $a --out $tmp/$n-$a --flash-opt $f > /dev/null
  done
done
for a in sm_80 sm_90a sm_100a; do
  echo "$a: $(ls $tmp/new-$a/*.ptx | wc -l) ptx"
  for p in $tmp/new-$a/*.ptx; do cmp -s $p $tmp/old-$a/$(basename $p) || echo "differs: $(basename $p)"; done
done
rm -rf "$tmp"
