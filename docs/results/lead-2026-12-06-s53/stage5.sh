#!/usr/bin/env bash
# Stages run 5 of the fifty-third session (README.md): main90 (stage1.sh's: every sm_90a
# decode plan of main 73e7533) and ef90: every one of those plans with its PTX edited by
# hint.py --kv evict_first (each cp.async.cg of Q, K and V with `.L2::cache_hint` and an
# evict_first createpolicy at each kernel's entry: run 1's `ef`, for every plan), assembled
# as flash-opt does (`ptxas -arch=sm_90a -v`). The PTX is main's: branch s53-evict-first's flash-opt
# with decodeKVEvictFirst returning false gives main90's 48 cubins byte for byte (`cmp`).
#   bash docs/results/lead-2026-12-06-s53/stage5.sh /tmp/m90   # that flash-opt's output
#   run(command="tar xJf build/r53/s5.tar.xz -C build/r53 && bash build/r53/s5/run5.sh",
#       carry=["build/r53/s5.tar.xz"])
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-06-s53
src=$1
out=build/r53/s5
rm -rf "$out" "$out.tar.xz"
mkdir -p "$out/ef90"
cp -r build/r53/s1/main90 "$out/main90"
for c in "$out"/main90/*.cubin; do cmp "$c" "$src/$(basename "$c")"; done
for p in "$src"/*.ptx; do
  f=$(basename "$p" .ptx)
  cp "$src/$f.json" "$out/ef90/"
  python3 "$here/hint.py" "$p" "$out/ef90/$f.ptx" --kv evict_first > /dev/null
  ptxas -arch=sm_90a -v -o "$out/ef90/$f.sm_90a.cubin" "$out/ef90/$f.ptx" > "$out/ef90/$f.ptxas" 2>&1
  if grep -q "[1-9][0-9]* bytes spill" "$out/ef90/$f.ptxas"; then echo "$f spills" >&2; exit 1; fi
  rm "$out/ef90/$f.ptxas"
done
bash scripts/bench/pack-stage.sh "$out" "$here"
