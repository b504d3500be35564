#!/usr/bin/env bash
# Stages run 1 of the fifty-second session (README.md): main90, every sm_90a decode plan
# of main 7a49754, compiled with that commit's flash-opt (build/bin/flash-opt).
#   bash docs/results/lead-2026-12-06-s52/stage1.sh
#   run(command="tar xJf build/r52/s1.tar.xz -C build/r52 && bash build/r52/s1/run1.sh",
#       carry=["build/r52/s1.tar.xz"])
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
out=build/r52/s1
export PYTHONPATH=$PWD/python
rm -rf "$out" "$out.tar.xz"
mkdir -p "$out"
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --out "$out/main90" \
  --flash-opt build/bin/flash-opt > /dev/null
# l2_64: main90's bf16 D = 64 non-causal split_kv and paged plans, their PTX (as flash-opt
# writes it: `python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --dtypes bf16
# --head-dims 64 --causal no --lse no`, the same JSON and cubins as main90's) with
# `.L2::256B` on every `cp.async.cg.shared.global`, assembled as flash-opt does (`ptxas -v`
# reproduces main90's cubins byte for byte from the unedited PTX).
d64=$(mktemp -d)
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --dtypes bf16 --head-dims 64 \
  --causal no --lse no --out "$d64" --flash-opt build/bin/flash-opt > /dev/null
mkdir -p "$out/l2_64"
for k in split paged; do
  f=flash_decode_${k}_sm_90a_bf16_d64
  cmp "$d64/$f.sm_90a.cubin" "$out/main90/$f.sm_90a.cubin"
  cp "$d64/$f.json" "$out/l2_64/"
  sed "s/cp\.async\.cg\.shared\.global \[/cp.async.cg.shared.global.L2::256B [/" "$d64/$f.ptx" > "$d64/$f.l2.ptx"
  ptxas -arch=sm_90a -v -o "$out/l2_64/$f.sm_90a.cubin" "$d64/$f.l2.ptx" > /dev/null 2>&1
done
rm -rf "$d64"
bash scripts/bench/pack-stage.sh "$out" docs/results/lead-2026-12-06-s52
