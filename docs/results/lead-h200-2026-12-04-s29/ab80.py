"""Twenty-ninth session, runs 7-8: the sm_80 plans with max_splits 128 (variant ms128 or
ms256) against 256 / 128, from RUNDIR's ab-a.json and ab-b.json. Usage: python3 ab80.py RUNDIR."""
import json, sys
R=sys.argv[1]
def load(f):
    d=json.load(open(f'{R}/{f}.json'))
    return {f"GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']}":{k:v['ms']*1000 for k,v in r['impls'].items()} for r in d['rows']}
a=load('ab-a'); b=load('ab-b')
print("| row | contiguous 128/256 (a, b) | paged S=16 (a, b) | S=64 (a, b) | 128 contiguous µs (a) |")
print("|---|---|---|---|---|")
for k in a:
    A,B=a[k],b[k]
    c=(A['split_kv [ms128]']/A['split_kv contiguous'], B['split_kv contiguous']/B['split_kv [ms256]'])
    p=(A['paged S=16 [ms128]']/A['paged S=16'], B['paged S=16']/B['paged S=16 [ms256]'])
    q=(A['paged S=64 [ms128]']/A['paged S=64'], B['paged S=64']/B['paged S=64 [ms256]'])
    print(f"| {k} | {c[0]:.3f} / {c[1]:.3f} | {p[0]:.3f} / {p[1]:.3f} | {q[0]:.3f} / {q[1]:.3f} | {A['split_kv [ms128]']:.2f} |")
