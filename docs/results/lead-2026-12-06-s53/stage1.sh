#!/usr/bin/env bash
# Stages run 1 of the fifty-third session (README.md): main90, every sm_90a decode plan of
# main 73e7533, compiled with that commit's flash-opt (build/bin/flash-opt), and three
# variants of its bf16 D = 128 non-causal paged plan whose PTX (as flash-opt writes it:
# `python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --dtypes bf16
# --head-dims 128 --causal no --lse no`, the same JSON and cubins as main90's) carries L2
# eviction hints (hint.py), assembled as flash-opt does (`ptxas -v` reproduces main90's
# cubins byte for byte from the unedited PTX):
#   el   the length and block-table loads (`ld.global.b32`) with an evict_last policy
#   ef   the Q/K/V tile copies (`cp.async.cg`) with an evict_first policy
#   elef both
# Their split-KV (contiguous) plan is main90's, unchanged.
#   bash docs/results/lead-2026-12-06-s53/stage1.sh
#   run(command="tar xJf build/r53/s1.tar.xz -C build/r53 && bash build/r53/s1/run1.sh",
#       carry=["build/r53/s1.tar.xz"], kind="nvidia-h100-x1")
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-06-s53
out=build/r53/s1
export PYTHONPATH=$PWD/python
rm -rf "$out" "$out.tar.xz"
mkdir -p "$out"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/main90" \
  --flash-opt build/bin/flash-opt > /dev/null
d=$(mktemp -d)
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --dtypes bf16 --head-dims 128 \
  --causal no --lse no --out "$d" --flash-opt build/bin/flash-opt > /dev/null
p=flash_decode_paged_sm_90a_bf16_d128
s=flash_decode_split_sm_90a_bf16_d128
for f in $p $s; do cmp "$d/$f.sm_90a.cubin" "$out/main90/$f.sm_90a.cubin"; done
for v in el:"--meta evict_last" ef:"--kv evict_first" elef:"--meta evict_last --kv evict_first"; do
  name=${v%%:*}
  mkdir -p "$out/$name"
  cp "$d/$p.json" "$d/$s.json" "$d/$s.sm_90a.cubin" "$out/$name/"
  # shellcheck disable=SC2086
  python3 "$here/hint.py" "$d/$p.ptx" "$d/$p.$name.ptx" ${v#*:} > /dev/null
  ptxas -arch=sm_90a -v -o "$out/$name/$p.sm_90a.cubin" "$d/$p.$name.ptx" > "$d/$name.ptxas" 2>&1
  if grep -q "[1-9][0-9]* bytes spill" "$d/$name.ptxas"; then echo "$name spills" >&2; exit 1; fi
done
rm -rf "$d"
bash scripts/bench/pack-stage.sh "$out" "$here"
