#!/usr/bin/env bash
# Lead's H200 run 11, thirty-fourth session (issue 17, item 5): the fused split kernel for pages of
# 64 slots looking a page up once a tile (a tile's keys lie in one page; FLASH_DECODE_EXP=tilepage:
# 9 global loads and 84 shared loads in its PTX against 37 and 98, 183 registers against 200),
# bf16 D = 128 sm_90a plans against main90, both slot orders.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5 --page-sizes 64"
step a 200 $DB --bundles $S/main90 --variant tilepage=$S/tilepage --json $O/a.json
step b 200 $DB --bundles $S/tilepage --variant main=$S/main90 --json $O/b.json
step c 200 $DB --bundles $S/main90 --variant tilepage=$S/tilepage --json $O/c.json
finish
