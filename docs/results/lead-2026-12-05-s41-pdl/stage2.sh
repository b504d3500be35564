#!/usr/bin/env bash
# Stages run 2 of this folder into build/r41 after stage.sh: from pdl's bf16 D = 128
# non-causal plans, nomerge (the merge kernel's early trigger removed), nofused (the
# fused split kernels' trigger after their K/V loop removed) and none (both), by
# untrigger.py, re-assembled by ptxas. Then: run(command="bash build/r41/run2.sh",
# carry=["build/r41"]).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
here=docs/results/lead-2026-12-05-s41-pdl
out=build/r41
export PYTHONPATH=$PWD/python
tmp=$(mktemp -d)
python3 -m flash_mlir.compile --ops split_kv,paged --arch sm_90a --dtypes bf16 --head-dims 128 \
  --causal no --lse no --out "$tmp" > /dev/null
for v in merge fused both; do
  mkdir -p "$out/no$v"
  for kind in split paged; do
    n=flash_decode_${kind}_sm_90a_bf16_d128
    cmp "$tmp/$n.sm_90a.cubin" "$out/pdl/$n.sm_90a.cubin"
    cp "$tmp/$n.json" "$out/no$v/"
    echo "no$v $n: $(python3 "$here/untrigger.py" "$tmp/$n.ptx" "$out/no$v/$n.ptx" $v) triggers removed"
    /usr/local/cuda/bin/ptxas -arch=sm_90a -o "$out/no$v/$n.sm_90a.cubin" "$out/no$v/$n.ptx" 2> /dev/null
    rm "$out/no$v/$n.ptx"
  done
done
cp "$here"/run2.sh "$out/"
rm -rf "$tmp"
du -sh "$out"
