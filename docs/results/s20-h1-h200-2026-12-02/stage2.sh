#!/bin/bash
# Second H200 run of branch s20-h1: the deterministic plan fixed (run 1's crash: the writer's
# final message was emitted outside the fused form), kReducedLag 2 (default, "ours") and 4
# (variant "lag4", built with the constant changed: /tmp/flash-opt-lag4), 8 message slots;
# main 67f485d's plans as the variant "main" of the same keys.
set -e
WT=/work/wt-h1
ST=/work/main/build/s20-h1-run
rm -rf $ST && mkdir -p $ST/lib
cp -r $WT/python $ST/python && find $ST/python -name __pycache__ -prune -exec rm -rf {} +
cp $WT/build/lib/libflash_runtime.so $ST/lib/
cd $WT
C="env PYTHONPATH=python /usr/bin/python3 -m flash_mlir.compile --arch sm_90a"
$C --ops backward --out $ST/ours --dtypes bf16,f16 --head-dims 128 --deterministic both --flash-opt build/bin/flash-opt
$C --ops backward --out $ST/bench --dtypes bf16 --head-dims 128 --deterministic no --flash-opt build/bin/flash-opt
$C --ops forward --lse yes --out $ST/bench --dtypes bf16 --head-dims 128 --flash-opt build/bin/flash-opt
$C --ops backward --out $ST/lag4 --dtypes bf16 --head-dims 128 --deterministic no --flash-opt ${LAG4_FLASH_OPT:-/tmp/flash-opt-lag4}
python3 - <<'PY'
import json, shutil
st = "/work/main/build/s20-h1-run"
def add(src, name, variant, dst=st + "/bench"):
    plan = json.load(open(f"{src}/{name}.json"))
    new = f"{name}_{variant}"
    plan["name"] = new
    plan["select"]["variant"] = variant
    for k in plan["kernels"]:
        for a, cub in k["files"]["cubins"].items():
            f = cub["file"].replace(name, new)
            shutil.copy(f"{src}/{cub['file']}", f"{dst}/{f}")
            cub["file"] = f
        p = k["files"]["ptx"].replace(name, new)
        shutil.copy(f"{src}/{k['files']['ptx']}", f"{dst}/{p}")
        k["files"]["ptx"] = p
    json.dump(plan, open(f"{dst}/{new}.json", "w"), indent=1)
for c in ("", "_causal"):
    add("/work/baseline-s20/sm90a-bwd", f"flash_bwd_sm_90a_bf16_d128{c}", "main")
    add(st + "/lag4", f"flash_bwd_sm_90a_bf16_d128{c}", "lag4")
PY
rm -rf $ST/lag4; rm -f $ST/*/*.mlir
cp $WT/docs/results/s20-h1-h200-2026-12-02/run2.sh $ST/run.sh
du -sh $ST
