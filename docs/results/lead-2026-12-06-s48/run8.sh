#!/usr/bin/env bash
# s48 run 8 (stage 6's, run6.sh's staging, with this script added): the serving loop
# (scripts/gpu/serve-check.py, issue 17 item 6) on the final sm_90a plans: batch 32 (GQA 8/2,
# 64 work units: grid x = 2 on 132 SMs, the pair merge in every decode step's graph) and
# batch 8 (16 work units: the fused merge through global memory).
. "$(dirname "$0")/device-run.sh"
SERVE="$S/../../../scripts/gpu/serve-check.py"
step serve32 200 python3 "$SERVE" --bundles $S/new90 --batch 32 --json $O/serve32.json
step serve8 120 python3 "$SERVE" --bundles $S/new90 --batch 8 --json $O/serve8.json
finish
