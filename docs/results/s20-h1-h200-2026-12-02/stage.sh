#!/bin/bash
# Stages the H200 run of branch s20-h1 under /work/main/build/s20-h1-run (ignored by git).
# ours: this branch's sm_90a backward bundles (bf16 + f16, D 64/128, both plans);
# bench: ours bf16 D 64/128 (atomic plan) + main 67f485d's (/work/baseline-s20/sm90a-bwd)
#        as the variant "main" of the same keys, so bench --variants times both in one round;
# plant: the planted bug (the counter's expected count one short: a tile converted
#        before its last K/V tile's reduction, tiles of one K/V tile never converted).
set -e
WT=/work/wt-h1
ST=/work/main/build/s20-h1-run
rm -rf $ST && mkdir -p $ST/lib
cp -r $WT/python $ST/python && find $ST/python -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so $ST/lib/
cd $WT
C="env PYTHONPATH=python /usr/bin/python3 -m flash_mlir.compile --arch sm_90a --ops backward"
$C --out $ST/ours --dtypes bf16,f16 --head-dims 128 --deterministic both --flash-opt build/bin/flash-opt
$C --out $ST/bench --dtypes bf16 --head-dims 128 --deterministic no --flash-opt build/bin/flash-opt
env PYTHONPATH=python /usr/bin/python3 -m flash_mlir.compile --arch sm_90a --ops forward --lse yes --out $ST/bench --dtypes bf16 --head-dims 128 --flash-opt build/bin/flash-opt
$C --out $ST/plant --dtypes bf16 --head-dims 128 --deterministic no --flash-opt ${PLANT_FLASH_OPT:-/tmp/flash-opt-plant}
python3 - <<'PY'
import json, shutil, glob, os
src, dst = "/work/baseline-s20/sm90a-bwd", "/work/main/build/s20-h1-run/bench"
for d in (128,):
    for c in ("", "_causal"):
        name = f"flash_bwd_sm_90a_bf16_d{d}{c}"
        plan = json.load(open(f"{src}/{name}.json"))
        plan["name"] = name + "_main"
        plan["select"]["variant"] = "main"
        for k in plan["kernels"]:
            for a, cub in k["files"]["cubins"].items():
                new = cub["file"].replace(name, name + "_main")
                shutil.copy(f"{src}/{cub['file']}", f"{dst}/{new}")
                cub["file"] = new
            ptx = k["files"]["ptx"].replace(name, name + "_main")
            shutil.copy(f"{src}/{k['files']['ptx']}", f"{dst}/{ptx}")
            k["files"]["ptx"] = ptx
        json.dump(plan, open(f"{dst}/{name}_main.json", "w"), indent=1)
PY
rm -f $ST/*/*.mlir
cp $WT/docs/results/s20-h1-h200-2026-12-02/run.sh $ST/run.sh
du -sh $ST
