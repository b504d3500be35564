#!/usr/bin/env bash
# s54 run 1, in the order of their worth: the SASS of new90's copies (no LDGSTS with a
# uniform-register address, the form ptxas 13.0 miscompiled in the fifty-third session's
# runs 2-4), new90 checked as a whole (and nothing more if that fails), then
# new90 against main90 and ef90 warm at D = 128 in two processes with the slots swapped,
# memcheck of new90's paged S = 16 cases, then D = 128 in a --cold process, and D = 64 and
# D = 256 in one process each (this order on 2026-12-07, when device time was short).
. "$(dirname "$0")/device-run.sh"
dis=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
forms() {
  for c in "$S"/new90/*.cubin; do "$dis" -sass "$c"; done | grep -o 'LDGSTS[^;]*' |
    sed -E 's/\bR[0-9]+/R/g; s/0x[0-9a-f]+/X/g; s/, !?P[0-9]//' | sort | uniq -c
}
step sass 120 bash -c "$(declare -f forms); S=$S dis=$dis forms > $O/ldgsts-forms.txt; ! grep -E 'LDGSTS[^[]*\[[^]]*UR' $O/ldgsts-forms.txt && cat $O/ldgsts-forms.txt | tr '\n' ' '"
step check 240 python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --json $O/check.json
if ! tail -1 "$O/steps.txt" | grep -q "rc=0"; then finish; exit 0; fi
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 150 $DB --bundles $S/new90 --variant main=$S/main90 --variant ef=$S/ef90 --json $O/a.json
step b 150 $DB --bundles $S/main90 --variant new=$S/new90 --variant ef=$S/ef90 --json $O/b.json
step memcheck 120 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/new90 --quick --only paged --page-sizes 16
step cold-a 240 $DB --cold --bundles $S/new90 --variant main=$S/main90 --json $O/cold-a.json
step d64-a 120 $DB --head-dim 64 --bundles $S/new90 --variant main=$S/main90 --json $O/d64-a.json
step d256-a 150 $DB --head-dim 256 --bundles $S/new90 --variant main=$S/main90 --json $O/d256-a.json
finish
