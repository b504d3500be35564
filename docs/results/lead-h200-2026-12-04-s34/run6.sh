#!/usr/bin/env bash
# Lead's H200 run 6, thirty-fourth session (issue 17, item 5): the split kernels with the lazy
# rescale (a row's max kept until a tile exceeds it by 2^8; the accumulator's rescale skipped in
# warps that need none; FLASH_DECODE_EXP=lazy at compile time): sm_90a (lazy90 against main90,
# three processes, the slots rotated) and sm_80 as sm_90 cubins (s80lazy against s80main, two).
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 200 $DB --bundles $S/main90 --variant lazy=$S/lazy90 --json $O/a.json
step b 200 $DB --bundles $S/lazy90 --variant main=$S/main90 --json $O/b.json
step c 200 $DB --bundles $S/main90 --variant lazy=$S/lazy90 --json $O/c.json
step s80-a 150 $DB --bundles $S/s80main --variant lazy=$S/s80lazy --json $O/s80-a.json
step s80-b 150 $DB --bundles $S/s80lazy --variant main=$S/s80main --json $O/s80-b.json
finish
