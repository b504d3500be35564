#!/usr/bin/env bash
# s38 run 1: where the bandwidth rows' time goes — main's bf16 D=128 sm_90a decode plans (base)
# against the split loop without its MMAs and softmax (nocompute, timing only: wrong output) and
# with Q·Kᵀ in two accumulator chains (qk2), with each row's read floor, two processes.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 200 $DB --bundles $S/base --variant nocompute=$S/nocompute --variant qk2=$S/qk2 --read-floor --json $O/a.json
step b 200 $DB --bundles $S/qk2 --variant base=$S/base --variant nocompute=$S/nocompute --json $O/b.json
finish
