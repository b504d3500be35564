import json,sys,statistics as st
files=sys.argv[1:]
data=[json.load(open(f)) for f in files]
print("files:", files, "ceilings:", [round(d['ceiling_TBps'],2) for d in data])
names=["split_kv contiguous","paged S=16","paged S=64","SDPA cuDNN","SDPA FA2"]
for i,row in enumerate(data[0]['rows']):
    key=f"{row['Hq']}/{row['Hkv']} B={row['B']} L={row['L']}"
    cells=[]
    for n in names:
        ms=[d['rows'][i]['impls'][n]['ms']*1e3 for d in data]
        cells.append("/".join(f"{x:.1f}" for x in ms))
    c=[d['rows'][i]['impls']['split_kv contiguous']['ms'] for d in data]
    p16=[d['rows'][i]['impls']['paged S=16']['ms'] for d in data]
    p64=[d['rows'][i]['impls']['paged S=64']['ms'] for d in data]
    cu=[d['rows'][i]['impls']['SDPA cuDNN']['ms'] for d in data]
    r=lambda a,b: "/".join(f"{x/y:.3f}" for x,y in zip(a,b))
    print(f"{key:18s} copies={row.get('kv_copies',1)} c,p16,p64,cudnn,fa2 us: {' | '.join(cells)}  cudnn/c {r(cu,c)} cudnn/p16 {r(cu,p16)} cudnn/p64 {r(cu,p64)} c/p16 {r(c,p16)} c/p64 {r(c,p64)}")
