"""Issue 17 item 5's goals for one build in decode_bench JSON files: per row and
process, paged / contiguous (time ratio inverted, %) and cuDNN / paged.
  python3 goals.py run4/ab-a.json:ms128 run4/ab-b.json: run4/cold-a.json:ms128"""
import json
import sys


def name(kind, tag):
    if kind == 'contiguous':
        return 'split_kv contiguous' if tag == '' else f'split_kv [{tag}]'
    return kind if tag == '' else f'{kind} [{tag}]'


runs = [(json.load(open(a.split(':')[0])), a.split(':')[1]) for a in sys.argv[1:]]
print('| row | contiguous / cuDNN | paged S=16 % of contiguous | S=64 | cuDNN / paged S=16 | S=64 |')
print('|---|---|---|---|---|---|')
for i, row in enumerate(runs[0][0]['rows']):
    cells = [[] for _ in range(5)]
    for d, tag in runs:
        impls = dict(d['rows'][i]['impls'])
        c = impls[name('contiguous', tag)]['ms']
        cudnn = impls['SDPA cuDNN']['ms']
        p16, p64 = (impls[name(f'paged S={s}', tag)]['ms'] for s in (16, 64))
        cells[0].append(f"{cudnn / c:.3f}")
        cells[1].append(f"{100 * c / p16:.1f}")
        cells[2].append(f"{100 * c / p64:.1f}")
        cells[3].append(f"{cudnn / p16:.3f}")
        cells[4].append(f"{cudnn / p64:.3f}")
    print(f"| GQA {row['Hq']}/{row['Hkv']} B={row['B']} L={row['L'] // 1024}k | "
          + ' | '.join(' / '.join(c) for c in cells) + ' |')
