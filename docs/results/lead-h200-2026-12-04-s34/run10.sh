#!/usr/bin/env bash
# Lead's H200 run 10, thirty-fourth session (issue 17, item 5): run 9's part-0 table reads, now
# volatile and before the seq_lens load in the PTX (run 9's were sunk by LLVM after the length's
# first use): spec0b (bf16 D = 128 sm_90a plans) against main90, both slot orders.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 200 $DB --bundles $S/main90 --variant spec0=$S/spec0b --json $O/a.json
step b 200 $DB --bundles $S/spec0b --variant main=$S/main90 --json $O/b.json
finish
