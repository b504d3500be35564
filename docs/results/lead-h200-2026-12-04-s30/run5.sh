#!/usr/bin/env bash
# Lead's H200 run 5, thirtieth session (issue 17, item 5): the paged kernels with the page
# size a compile-time constant (`consts`, FLASH_DECODE_EXP=constS: S = 16, the compiled op's,
# in place of the launch argument; timing only, the S = 16 rows (--page-sizes 16): at
# S = 64 it reads out of bounds, which the first attempt of this run did) against main,
# bf16 D = 128 sm_90a, four processes.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5 --page-sizes 16"
step ab-a 120 $DB --bundles $S/main90 --variant consts=$S/consts --json $O/ab-a.json
step ab-b 120 $DB --bundles $S/consts --variant main=$S/main90 --json $O/ab-b.json
step cold-a 120 $DB --cold --bundles $S/main90 --variant consts=$S/consts --json $O/cold-a.json
step ab-c 120 $DB --bundles $S/main90 --variant consts=$S/consts --json $O/ab-c.json
finish
