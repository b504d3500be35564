#!/usr/bin/env bash
# Lead's H200 run 15, thirty-third session (issue 17, item 5): the combine floor with fewer,
# longer parts at L = 128k (64 or 96 blocks, 4 or 6 stages; no handoff, 1 word, 1024 words),
# the last structure runs 1-13 left out, two processes.
. "$(dirname "$0")/device-run.sh"
step cf-a 200 ./combine-floor --rounds 5 --json $O/cf-a.json
step cf-b 200 ./combine-floor --rounds 5 --json $O/cf-b.json
finish
