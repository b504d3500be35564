#!/usr/bin/env bash
# s41 run 2 (staged by stage.sh, then stage2.sh): pdl against main's plans (base) and
# pdl without the merge kernel's early trigger (nomerge), without the fused split
# kernels' (nofused), without both (noboth); back to back, two processes with the
# slots reversed, then one behind a torch kernel (--between).
. "$(dirname "$0")/device-run.sh"
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 130 $DB --bundles $S/pdl --variant base=$S/base --variant nomerge=$S/nomerge --variant nofused=$S/nofused --variant noboth=$S/noboth --json $O/a.json
step b 130 $DB --bundles $S/noboth --variant nofused=$S/nofused --variant nomerge=$S/nomerge --variant base=$S/base --variant pdl=$S/pdl --json $O/b.json
step c 130 $DB --bundles $S/pdl --variant base=$S/base --variant nomerge=$S/nomerge --variant nofused=$S/nofused --variant noboth=$S/noboth --between --json $O/c.json
finish
