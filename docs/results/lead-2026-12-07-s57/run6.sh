#!/usr/bin/env bash
# s57 run 6 (H100; stage5.sh's folder packed again with this script): the serving loop
# (scripts/gpu/serve-check.py, issue 17 item 6) on new90 (the grid bounded by the cache's
# capacity) and ship90 (before it): batch 1 (GQA 8/2: 2 work units, grid x 66 before,
# 6 now for its ~800-key caches), batch 8 (16 work units: 8 before, 6 now), batch 32 (64
# work units: 2 either way, the pair merge).
. "$(dirname "$0")/device-run.sh"
SERVE="$S/../../../scripts/gpu/serve-check.py"
step serve1-new 120 python3 "$SERVE" --bundles $S/new90 --batch 1 --json $O/serve1-new.json
step serve1-ship 120 python3 "$SERVE" --bundles $S/ship90 --batch 1 --json $O/serve1-ship.json
step serve8-new 120 python3 "$SERVE" --bundles $S/new90 --batch 8 --json $O/serve8-new.json
step serve8-ship 120 python3 "$SERVE" --bundles $S/ship90 --batch 8 --json $O/serve8-ship.json
step serve32-new 150 python3 "$SERVE" --bundles $S/new90 --batch 32 --json $O/serve32-new.json
finish
