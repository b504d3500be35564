#!/usr/bin/env bash
# s41 run 5 (build/r41 as staged for run 4, python/ refreshed: cp -r python build/r41/):
# the chain check with its queries handed over by early_copy.ptx (a kernel that
# triggers its dependents before it copies), on the shipped plans and on the plant
# (the separate merge's split kernels without their griddepcontrol.wait).
. "$(dirname "$0")/device-run.sh"
step chain 120 python3 -m flash_mlir.tools.decode_check --bundles $S/pdl --only chain --json $O/chain.json
step plant 60 python3 -m flash_mlir.tools.decode_check --bundles $S/plant --only chain --json $O/plant.json
step chainsmall 90 compute-sanitizer --tool racecheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/pdl --small --only chain
finish
