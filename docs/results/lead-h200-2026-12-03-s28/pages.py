"""Paged time over contiguous (µs and %) for each page order in a decode_bench JSON
run with --page-order shuffled,sequential,local, and cuDNN's time.
  python3 pages.py run1/pages.json"""
import json, sys
d = json.load(open(sys.argv[1]))
orders = d['page_order']
suffix = {'shuffled': '', 'sequential': ' seq', 'local': ' local'}
print('| row | contiguous | cuDNN | ' + ' | '.join(
    f'S={s} {o}' for s in (16, 64) for o in orders) + ' |')
print('|---|---|---|' + '---|' * (2 * len(orders)))
for r in d['rows']:
    I = dict(r['impls'])
    c = I['split_kv contiguous']['ms']
    cells = [f"{c * 1e3:.2f}", f"{I['SDPA cuDNN']['ms'] * 1e3:.2f}"]
    for s in (16, 64):
        for o in orders:
            t = I[f'paged S={s}{suffix[o]}']['ms']
            cells.append(f"{t * 1e3:.2f} ({100 * c / t:.1f}%)")
    print(f"| GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L'] // 1024}k | " + ' | '.join(cells) + ' |')
