#!/usr/bin/env bash
# s48 run 5 (staged by hand, README.md): a planted pair merge (both parts' O weighted by the
# first part's weight, bf16 D = 128 plans) through decode_check's merge cases: the pair-merge
# cases must fail, the others pass.
. "$(dirname "$0")/device-run.sh"
step plant 200 python3 -m flash_mlir.tools.decode_check --bundles $S/plant --only many,peaks,graph --json $O/plant.json
finish
