#!/usr/bin/env bash
# Lead's H200 run 4, thirty-third session (issue 17, item 5): run 3 again with the merge kernel's
# loads of 8 parts in flight (as FlashMLIR's merge kernel; run 3's merge loaded one part
# at a time), two processes.
. "$(dirname "$0")/device-run.sh"
step cf-a 200 ./combine-floor --rounds 5 --json $O/cf-a.json
step cf-b 200 ./combine-floor --rounds 5 --json $O/cf-b.json
finish
