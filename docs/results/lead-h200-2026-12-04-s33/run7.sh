#!/usr/bin/env bash
# Lead's H200 run 7, thirty-third session (issue 17, item 5): the combine floor as committed,
# now also with parts of 2 and 4 tiles at L = 8k (64 and 32 blocks) and of 2 at L = 32k
# (256 blocks), without partials and with 1024-word partials + the pdl merge: would parts
# shorter than the split rule's 4 tiles serve the one-work-unit rows? Two processes.
. "$(dirname "$0")/device-run.sh"
step cf-a 200 ./combine-floor --rounds 5 --json $O/cf-a.json
step cf-b 200 ./combine-floor --rounds 5 --json $O/cf-b.json
finish
