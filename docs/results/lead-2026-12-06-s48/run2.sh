#!/usr/bin/env bash
# s48 run 2 (staged by stage1.sh, the same main90): what the fused merge's handoff costs a
# one-wave GQA 8/1 grid. 128 blocks of 2 MiB each three ways: B = 128 L = 4k (one part a
# sequence, no merge), B = 64 L = 8k (2 parts), B = 32 L = 16k (4 parts); and 1 MiB blocks
# (B = 128 L = 2k, one part) and 4 MiB blocks (B = 128 L = 8k, one part), with the read
# floors, two processes.
. "$(dirname "$0")/device-run.sh"
R="128x2048,128x4096,64x8192,32x16384,128x8192"
DB="python3 -m flash_mlir.tools.decode_bench --rounds 5 --read-floor --bundles $S/main90 --gqa 8/1 --rows $R"
step a 150 $DB --json $O/a.json
step b 150 $DB --json $O/b.json
finish
