"""Time ratio NEW / MAIN per row for each FILE:NEW:MAIN given (tags: '' for the bench's
own bundles, else the --variant name), processes side by side, and cuDNN's time over
MAIN's and NEW's paged times ('main;new'), as a markdown table. Columns: contiguous,
paged S=16 and S=64, and the local page order when the first file timed it.
  cd docs/results/lead-h200-2026-12-03-s28
  python3 ab.py run1/ab-a.json:tlb1: run1/ab-b.json::main      # tlb1 / main
  python3 ab.py run1/ab-a.json:tlb2: run1/ab-b.json:tlb2:main  # tlb2 / main
  python3 ab.py run2/ab-a.json:hx: run2/ab-b.json::main run2/cold-a.json:hx:"""
import json
import sys


def name(kind, tag):
    if kind == 'contiguous':
        return 'split_kv contiguous' if tag == '' else f'split_kv [{tag}]'
    return kind if tag == '' else f'{kind} [{tag}]'


runs = []
for arg in sys.argv[1:]:
    path, new, main = arg.split(':')
    runs.append((json.load(open(path)), new, main))
kinds = ['contiguous', 'paged S=16', 'paged S=64']
if 'local' in runs[0][0].get('page_order', []):
    kinds += ['paged S=16 local', 'paged S=64 local']
print('| row | ' + ' | '.join(kinds) + ' | cuDNN / paged S=16 | cuDNN / paged S=64 |')
print('|---|' + '---|' * (len(kinds) + 2))
for i, row in enumerate(runs[0][0]['rows']):
    cells = []
    for kind in kinds:
        cells.append(' / '.join(
            f"{dict(d['rows'][i]['impls'])[name(kind, new)]['ms'] / dict(d['rows'][i]['impls'])[name(kind, main)]['ms']:.3f}"
            for d, new, main in runs if name(kind, new) in dict(d['rows'][i]['impls'])))
    for kind in ('paged S=16', 'paged S=64'):
        parts = []
        for d, new, main in runs:
            impls = dict(d['rows'][i]['impls'])
            cudnn = impls['SDPA cuDNN']['ms']
            parts.append(f"{cudnn / impls[name(kind, main)]['ms']:.3f};"
                         f"{cudnn / impls[name(kind, new)]['ms']:.3f}")
        cells.append(' / '.join(parts))
    print(f"| GQA {row['Hq']}/{row['Hkv']} B={row['B']} L={row['L'] // 1024}k | "
          + ' | '.join(cells) + ' |')
