"""Twenty-ninth session: a paged variant against main, from a run's ab-a.json / ab-b.json (slots
swapped) and seq-a.json (sequential pages). Usage: python3 ab.py RUNDIR VARIANT."""
import json, sys
R=sys.argv[1]; V=sys.argv[2] if len(sys.argv)>2 else 'carry'
def load(f):
    d=json.load(open(f'{R}/{f}.json'))
    out={}
    for r in d['rows']:
        key=f"GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']}"
        out[key]={k:v['ms']*1000 for k,v in r['impls'].items()}
    return out
a=load('ab-a'); b=load('ab-b'); s=load('seq-a')
print(f"| row | S=16 {V}/main (a, b, seq) | S=64 {V}/main (a, b, seq) | contiguous µs | S=16 % of contiguous, {V} (a, b) | main (a, b) | cuDNN / S=16, {V} (a, b) | main (a, b) |")
print("|---|---|---|---|---|---|---|---|")
for k in a:
    A,B,Q=a[k],b[k],s[k]
    r16=(A[f'paged S=16 [{V}]']/A['paged S=16'], B['paged S=16']/B['paged S=16 [main]'], Q[f'paged S=16 seq [{V}]']/Q['paged S=16 seq'])
    r64=(A[f'paged S=64 [{V}]']/A['paged S=64'], B['paged S=64']/B['paged S=64 [main]'], Q[f'paged S=64 seq [{V}]']/Q['paged S=64 seq'])
    pc=(100*A['split_kv contiguous']/A[f'paged S=16 [{V}]'], 100*B['split_kv contiguous']/B['paged S=16'], 100*A['split_kv contiguous']/A['paged S=16'], 100*B['split_kv contiguous']/B['paged S=16 [main]'])
    cu=(A['SDPA cuDNN']/A[f'paged S=16 [{V}]'], B['SDPA cuDNN']/B['paged S=16'], A['SDPA cuDNN']/A['paged S=16'], B['SDPA cuDNN']/B['paged S=16 [main]'])
    print(f"| {k} | {r16[0]:.3f} / {r16[1]:.3f} / {r16[2]:.3f} | {r64[0]:.3f} / {r64[1]:.3f} / {r64[2]:.3f} | {A['split_kv contiguous']:.2f} | {pc[0]:.1f} / {pc[1]:.1f} | {pc[2]:.1f} / {pc[3]:.1f} | {cu[0]:.3f} / {cu[1]:.3f} | {cu[2]:.3f} / {cu[3]:.3f} |")
