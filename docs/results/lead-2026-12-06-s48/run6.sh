#!/usr/bin/env bash
# s48 run 6 (staged by stage6.sh): the final pair merge, checked and timed as run 4 was:
# run4.sh's steps (decode_check of every sm_90a decode plan, memcheck and racecheck of the
# small lists, decode_bench against main's plans with the slots swapped) on this stage.
. "$(dirname "$0")/run4.sh"
