#!/usr/bin/env bash
# s56 run 3: the plans to merge (fin90) checked and timed as run 1 of the fifty-fourth
# session did new90: the SASS forms of their copies (no LDGSTS with a uniform-register
# address), decode_check of every plan (nothing more if it fails), memcheck of the paged
# S = 16 cases, then fin90 against main90 at D = 128 warm in two processes with the slots
# swapped, and --cold.
. "$(dirname "$0")/device-run.sh"
dis=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
forms() {
  for c in "$S"/fin90/*.cubin; do "$dis" -sass "$c"; done | grep -o 'LDGSTS[^;]*' |
    sed -E 's/\bR[0-9]+/R/g; s/0x[0-9a-f]+/X/g; s/, !?P[0-9]//' | sort | uniq -c
}
step sass 120 bash -c "$(declare -f forms); S=$S dis=$dis forms > $O/ldgsts-forms.txt; ! grep -E 'LDGSTS[^[]*\[[^]]*UR' $O/ldgsts-forms.txt && cat $O/ldgsts-forms.txt | tr '\n' ' '"
step check 240 python3 -m flash_mlir.tools.decode_check --bundles $S/fin90 --json $O/check.json
if ! tail -1 "$O/steps.txt" | grep -q "rc=0"; then finish; exit 0; fi
step memcheck 120 compute-sanitizer --tool memcheck --kernel-name kns=flash_decode python3 -m flash_mlir.tools.decode_check --bundles $S/fin90 --quick --only paged --page-sizes 16
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step a 150 $DB --bundles $S/fin90 --variant main=$S/main90 --json $O/a.json
step b 150 $DB --bundles $S/main90 --variant fin=$S/fin90 --json $O/b.json
step cold-a 240 $DB --cold --bundles $S/fin90 --variant main=$S/main90 --json $O/cold-a.json
finish
