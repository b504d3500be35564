#!/usr/bin/env bash
# s56 run 4 (staged by stage3.sh's folder, packed again with this script): the rows where
# run 3 timed fin90's contiguous form slower than main90's warm (GQA 32/8 B=1 L=8k,
# GQA 8/1 B=1 L=32k; run 2 timed the same split cubins 1.004-1.008x), with 9 rounds, in
# two processes with the slots swapped, and main90 against itself (variant `aa`: the same
# cubins loaded again) for the noise of these short rows.
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rows 1x8192,1x32768,64x1024 --rounds 9"
step a 120 $DB --bundles $S/fin90 --variant main=$S/main90 --variant aa=$S/main90 --json $O/a.json
step b 120 $DB --bundles $S/main90 --variant fin=$S/fin90 --variant aa=$S/main90 --json $O/b.json
finish
