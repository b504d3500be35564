#!/usr/bin/env bash
# Lead's H200 run 3, thirty-third session (issue 17, item 5): the combine floor with the
# decode block's stream in the split-KV kernels' loop order (wait, barrier, issue, use)
# and the decode shape's frame (the length first; a part's 4 KB partials and the merge
# by programmatic dependent launch), two processes. (The merge kernel here still loaded
# one part at a time; run 4 loads 8 in flight.)
. "$(dirname "$0")/device-run.sh"
step cf-a 200 ./combine-floor --rounds 5 --json $O/cf-a.json
step cf-b 200 ./combine-floor --rounds 5 --json $O/cf-b.json
finish
