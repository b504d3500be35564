import csv, sys
rows=list(csv.reader(open(sys.argv[1])))
hdr=rows[0]
labels=sys.argv[2].split(',')
def series(r,key):
    for i,h in enumerate(hdr):
        if key in h:
            v=r[i]
            if '(' in v:
                out=[]
                for x in v[v.index('(')+1:v.rindex(')')].split(';'):
                    x=x.strip().replace(',','')
                    try: out.append(float(x))
                    except: out.append(0.0)
                return out
def scalar(r,key):
    for i,h in enumerate(hdr):
        if key == h.strip(): return r[i]
keys=['dramc__read_throughput.avg.pct','sm__cycles_active.avg','sm__inst_executed_realtime.avg.pct','lts__t_sector_throughput_srcunit_tex.avg','gr__ctas_launched_realtime']
data=[r for r in rows[1:] if r[0].strip().isdigit()]
print("interval:", scalar(data[0],'profiler__pmsampler_interval_time') if data else None)
for n,r in enumerate(data):
    if n%2==0: continue  # the warm-up call of each pair
    s={k:series(r,k) for k in keys}
    act=[i for i,x in enumerate(s['sm__cycles_active.avg']) if x>0.5]
    lo,hi=min(act)-1,max(act)+2
    print('==',labels[n//2], r[8])
    print('sample'.ljust(14), ' '.join(f'{i-lo:5d}' for i in range(lo,hi)))
    names={'dramc__read_throughput.avg.pct':'DRAM read %','sm__cycles_active.avg':'SMs active %','sm__inst_executed_realtime.avg.pct':'issue %','lts__t_sector_throughput_srcunit_tex.avg':'L2 from SM %','gr__ctas_launched_realtime':'CTAs launched'}
    for k in keys:
        v=s[k][lo:hi]
        if k=='sm__cycles_active.avg':
            per=float((scalar(r,'profiler__pmsampler_interval_time') or '1.5').split()[0])
            v=[100*x/(per*1000*1.98) for x in v]  # cycles/sample at 1.98 GHz
        print(names[k].ljust(14), ' '.join(f'{x:5.1f}' for x in v))
