"""Prints decode_bench rows as µs per call and TB/s: python3 rows.py FILE.json ..."""
import json
import sys

KEYS = ['split_kv contiguous', 'paged S=16', 'paged S=64', 'read floor contiguous',
        'read floor S=16', 'read floor S=64', 'SDPA cuDNN']
print('| file | row | MB | ' + ' | '.join(KEYS) + ' |')
print('|---' * (len(KEYS) + 3) + '|')
for f in sys.argv[1:]:
    for r in json.load(open(f))['rows']:
        us = {k: v['ms'] * 1000 for k, v in r['impls'].items()}
        mb = r['bytes'] / 1e6
        cells = [f"{us[k]:.2f} ({mb / us[k]:.3f})" if k in us else '' for k in KEYS]
        print(f"| {f} | GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']} | {mb:.1f} | "
              + ' | '.join(cells) + ' |')
