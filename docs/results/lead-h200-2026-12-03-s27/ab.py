import json,sys,statistics as st
# usage: ab.py FILE NEWTAG(optional: name suffix for new e.g. '' or ' [new]') MAINTAG
f,newtag,maintag=sys.argv[1],sys.argv[2],sys.argv[3]
d=json.load(open(f))
def nm(base,tag):
    if tag=='': return {'c':'split_kv contiguous','p16':'paged S=16','p64':'paged S=64'}[base]
    return {'c':f'split_kv [{tag}]','p16':f'paged S=16 [{tag}]','p64':f'paged S=64 [{tag}]'}[base]
print(f, 'ceiling', round(d['ceiling_TBps'],2))
print(f"{'row':20s} {'new c/p16/p64 us':24s} {'main c/p16/p64':24s} new/main time c p16 p64 | cuDNN/new c p16 p64 | new p/c 16 64 | main p/c 16 64")
for r in d['rows']:
    I=r['impls']; key=f"{r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']}"
    n={k:I[nm(k,newtag)]['ms']*1e3 for k in ('c','p16','p64')}
    m={k:I[nm(k,maintag)]['ms']*1e3 for k in ('c','p16','p64')}
    cu=I['SDPA cuDNN']['ms']*1e3
    print(f"{key:20s} {n['c']:7.2f}/{n['p16']:7.2f}/{n['p64']:7.2f} {m['c']:7.2f}/{m['p16']:7.2f}/{m['p64']:7.2f}  "
          f"{n['c']/m['c']:.3f} {n['p16']/m['p16']:.3f} {n['p64']/m['p64']:.3f} | {cu/n['c']:.3f} {cu/n['p16']:.3f} {cu/n['p64']:.3f} | "
          f"{n['c']/n['p16']*100:.1f}% {n['c']/n['p64']*100:.1f}% | {m['c']/m['p16']*100:.1f}% {m['c']/m['p64']*100:.1f}%")
