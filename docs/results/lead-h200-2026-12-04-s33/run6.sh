#!/usr/bin/env bash
# Lead's H200 run 6, thirty-third session (issue 17, item 5): the combine floor with the
# parts' partials at 1, 256, 512 and 1024 words a block (the merge reading them all,
# 8 parts' loads in flight), two processes: does the handoff's cost follow its bytes?
. "$(dirname "$0")/device-run.sh"
step cf-a 200 ./combine-floor --rounds 5 --json $O/cf-a.json
step cf-b 200 ./combine-floor --rounds 5 --json $O/cf-b.json
finish
