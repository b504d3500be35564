#!/usr/bin/env bash
# Lead's H200 run 8, thirty-fourth session (issue 17, item 5): run 7's block-table cost split in
# two, on sequential pages: xseqpro takes the prologue's pages as b·M + index (no table read
# before the first copies; the loop looks them up in the window as main), xseqloop the loop's
# (the prologue reads the table as main); xlenMseqpages (no table, no length) and main90.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1 --rows 1x8192,8x32768,64x8192,128x2048 --rounds 5 --page-order sequential"
step a 200 $DB --bundles $S/main90 --variant seqpro=$S/xseqpro --variant seqloop=$S/xseqloop --variant both=$S/xlenMseqpages --json $O/a.json
step b 200 $DB --bundles $S/xseqloop --variant both=$S/xlenMseqpages --variant main=$S/main90 --variant seqpro=$S/xseqpro --json $O/b.json
finish
