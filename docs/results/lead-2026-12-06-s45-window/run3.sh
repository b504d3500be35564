#!/usr/bin/env bash
# s45 run 3 (staged by stage.sh as build/r45/s3: new90 = the final plans, whose fused split
# kernels are run 2's (PTX identical) and whose separate merge's split kernels and merge
# kernels are main's (PTX and launch identical)): decode_check and memcheck.
. "$(dirname "$0")/device-run.sh"
step check90 200 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --json $O/check90.json
step memcheck 60 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --small --only paged,many
finish
