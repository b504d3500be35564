#!/usr/bin/env bash
# Lead's H200 run 4, thirty-fourth session: decode_check's many-parts and merge-peaks cases
# after the case change (every merge reached: sm_90a's fused merge in two batches at 12 work
# units; 4096 keys for one level of 32 parts), on main's full sets (lit's ptx-decode.mlir
# build: full90 sm_90a, full80 sm_80 as sm_90 cubins), and the merge-sms plant against them.
. "$(dirname "$0")/device-run.sh"
DC="python3 -m flash_mlir.tools.decode_check"
step c90 200 $DC --bundles $S/full90 --only many,peaks --json $O/c90.json
step c80 200 $DC --bundles $S/full80 --only many,peaks --json $O/c80.json
step plant90 120 $DC --bundles $S/full90 --only many,peaks --plant merge-sms --json $O/plant90.json
# A planted fused merge (plant90: sm_90a bf16 D = 128 plans from a flash-opt whose fused merge
# keeps its sums when a batch raises the maximum): the new cases, and the old list (python_old).
step plant-rescale 150 $DC --bundles $S/plant90 --only many,peaks --json $O/plant-rescale.json
step plant-rescale-old 150 env PYTHONPATH=$S/python_old $DC --bundles $S/plant90 --only many,peaks --json $O/plant-rescale-old.json
finish
