#!/usr/bin/env bash
# Lead's H200 run 13, thirty-third session (issue 17, item 5): the combine floor with the parts
# of clusters of 2, 4 and 8 blocks reduced through distributed shared memory before the
# dependent merge (the one structure runs 1-12 left out), two processes.
. "$(dirname "$0")/device-run.sh"
step cf-a 200 ./combine-floor --rounds 5 --json $O/cf-a.json
step cf-b 200 ./combine-floor --rounds 5 --json $O/cf-b.json
finish
