"""Time ratio new / main per row, for each file given as FILE:NEWTAG:MAINTAG
(tags: '' for the bench's own bundles, else the --variant name), as a markdown table.
  python3 ratios.py run2/warm-a.json::main run2/warm-b.json:new: run2/cold-a.json::main"""
import json, sys
def name(kind, tag):
    base = {'c': 'split_kv', 'p16': 'paged S=16', 'p64': 'paged S=64'}[kind]
    if kind == 'c':
        return 'split_kv contiguous' if tag == '' else f'split_kv [{tag}]'
    return base if tag == '' else f'{base} [{tag}]'
runs = []
for arg in sys.argv[1:]:
    f, new, main = arg.split(':')
    runs.append((json.load(open(f)), new, main))
rows = [f"{r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']}" for r in runs[0][0]['rows']]
print('| row | contiguous | paged S=16 | paged S=64 |')
print('|---|---|---|---|')
for i, key in enumerate(rows):
    cells = []
    for kind in ('c', 'p16', 'p64'):
        vals = []
        for d, new, main in runs:
            I = d['rows'][i]['impls']
            vals.append(f"{I[name(kind, new)]['ms'] / I[name(kind, main)]['ms']:.3f}")
        cells.append(' / '.join(vals))
    print(f"| GQA {key} | " + ' | '.join(cells) + ' |')
