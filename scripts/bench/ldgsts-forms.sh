#!/usr/bin/env bash
# The SASS forms of the cp.async copies (LDGSTS) in a bundle folder's cubins, on the GPU
# machine (by hand through the device tool, never in CI: it needs cuobjdump), with the
# registers and constants named alike and counted; exits 1 if any copy's shared address
# holds a uniform register (`LDGSTS ... [R5+UR4+0x800]`): the form ptxas 13.0 gave inline-PTX
# copies whose shared address was a register operand, with the uniform register never
# written, an illegal instruction (docs/benchmarks.md, fifty-third session).
#
#   bash scripts/bench/ldgsts-forms.sh BUNDLE_DIR > forms.txt     # in a run script's step
#   cuobjdump -sass X.cubin | bash scripts/bench/ldgsts-forms.sh -   # SASS on stdin
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: ldgsts-forms.sh BUNDLE_DIR | -" >&2
  exit 2
fi
sass() {
  if [ "$1" = - ]; then
    cat
  else
    local dis
    dis=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
    for c in "$1"/*.cubin; do "$dis" -sass "$c"; done
  fi
}
forms=$(sass "$1" | { grep -o 'LDGSTS[^;]*' || true; } |
  sed -E 's/\bR[0-9]+/R/g; s/0x[0-9a-f]+/X/g; s/, !?P([0-9]|T)//' | sort | uniq -c)
if [ -z "$forms" ]; then
  echo "no LDGSTS found" >&2
  exit 1
fi
echo "$forms"
if grep -qE 'LDGSTS[^[]*\[[^]]*UR' <<< "$forms"; then
  echo "LDGSTS with a uniform register in its shared address (above)" >&2
  exit 1
fi
