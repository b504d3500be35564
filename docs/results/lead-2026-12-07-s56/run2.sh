#!/usr/bin/env bash
# s56 run 2: where does branch s54-ef-gate's warm slowdown on the L2-resident rows come
# from (run 1 of the fifty-fourth session's plans, in this session: new over main 1.04-1.08
# at GQA 8/1 B=64 L=1k, 1.03-1.16 at GQA 32/8 B=1 L=8k, where the gate picks evict-normal)?
# new90 against main90 and the three edits (nh, eu, el) on the rows around them, warm, in
# two processes with the slots swapped; then eu and el checked whole (decode_check --quick).
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rows 1x8192,1x32768,64x1024 --rounds 5"
V="--variant nh=$S/nh90 --variant eu=$S/eu90 --variant el=$S/el90"
step a 150 $DB --bundles $S/new90 --variant main=$S/main90 $V --json $O/a.json
step b 150 $DB --bundles $S/main90 --variant new=$S/new90 $V --json $O/b.json
step check-eu 120 python3 -m flash_mlir.tools.decode_check --bundles $S/eu90 --quick --json $O/check-eu.json
step check-el 120 python3 -m flash_mlir.tools.decode_check --bundles $S/el90 --quick --json $O/check-el.json
finish
