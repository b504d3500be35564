#!/usr/bin/env bash
# Lead's H200 run 7, thirty-fourth session (issue 17, item 5): what the paged kernels' dependent
# loads cost at S = 64 and 16 on sequential pages (where these variants are right): xlenM takes
# every length as M·S (no seq_lens load), xseqpages takes page b·M + index (no block-table read),
# xlenMseqpages both (experiments.diff's third switch); main90's contiguous plan in the same rounds.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1 --rows 1x8192,8x32768,64x8192,128x2048 --rounds 5 --page-order sequential"
V="--variant lenM=$S/xlenM --variant seqpages=$S/xseqpages --variant both=$S/xlenMseqpages"
step a 200 $DB --bundles $S/main90 $V --json $O/a.json
step b 200 $DB --bundles $S/xlenMseqpages --variant main=$S/main90 --variant lenM=$S/xlenM --variant seqpages=$S/xseqpages --json $O/b.json
finish
