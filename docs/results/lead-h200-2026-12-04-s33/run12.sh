#!/usr/bin/env bash
# Lead's H200 run 12, thirty-third session: the read yardsticks after their shared code moved
# to scripts/bench/graph-timing.cuh and bulk-copy.cuh (no change meant): combine-floor and
# read-floor, one process each, and combine-floor's usage error.
. "$(dirname "$0")/device-run.sh"
step cf 200 ./combine-floor --rounds 3 --json $O/cf.json
step rf 300 ./read-floor --rounds 2 --json $O/rf.json
step usage 20 ./combine-floor --bogus
finish
