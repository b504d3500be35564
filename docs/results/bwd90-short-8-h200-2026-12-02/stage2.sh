#!/usr/bin/env bash
# H4, run 2: added to run 1's staging directory (stage.sh) on the build machine.
# persist1: the persistent kernels of p90 with the grid's x set to the work-tile count
# (one tile per block: the persistent code without its multi-tile overlap), a JSON-only
# change; planted: the persistent D = 128 kernels with the first two sources of every
# st.shared.v4.b32 swapped in the PTX, re-assembled with ptxas.
set -eu
S=/work/main/build/bwd90-short-8-run; cd $S
VAR=/work/main/docs/results/bwd-d256-perf-h200-2026-12-02/variant.py
python3 - <<'PY'
import json, os, shutil, subprocess
VAR='/work/main/docs/results/bwd-d256-perf-h200-2026-12-02/variant.py'
os.makedirs('/tmp/h4/one', exist_ok=True)
for d in (64, 128):
    for c in ('', '_causal'):
        n = f'flash_bwd_sm_90a_bf16_d{d}{c}'
        j = json.load(open(f'p90/{n}.json'))
        for k in j['kernels']:
            if k['grid'].get('kind') == 'persistent':
                assert k['grid']['x'][0] == 'min'
                k['grid']['x'] = k['grid']['x'][2]   # min(SMs, T) -> T
        for f in os.listdir('p90'):
            if f.startswith(n + '.'): shutil.copy('p90/' + f, '/tmp/h4/one/' + f)
        json.dump(j, open(f'/tmp/h4/one/{n}.json', 'w'), indent=1)
        subprocess.check_call(['/usr/bin/python3', VAR, f'/tmp/h4/one/{n}.json', 'bvar', 'persist1'],
                              stdout=subprocess.DEVNULL)
PY
rm -rf planted && mkdir planted
for c in "" _causal; do
  n=flash_bwd_sm_90a_bf16_d128$c; cp p90/$n.json planted/
  sed -E 's/(st\.shared\.v4\.b32[^{]*\{)(%r[0-9]+), (%r[0-9]+),/\1\3, \2,/' p90/$n.ptx > planted/$n.ptx
  cmp -s p90/$n.ptx planted/$n.ptx && { echo "planting changed nothing in $n"; exit 1; }
  ptxas -arch=sm_90a -o planted/$n.sm_90a.cubin planted/$n.ptx
done
cp /tmp/h4/run2.sh $S/
