#!/usr/bin/env bash
# Lead's H200 run 16, thirty-third session: both read yardsticks after the review's mend
# (graph capture through graph-timing.cuh's captureGraph, the cluster launch through one
# helper; device code cmp-identical), one process each.
. "$(dirname "$0")/device-run.sh"
step cf 200 ./combine-floor --rounds 3 --json $O/cf.json
step rf 300 ./read-floor --rounds 2 --json $O/rf.json
finish
