import json,glob,statistics,collections,re,os
d=os.environ.get('D','/work/runs/jmh16b')
rows=collections.defaultdict(lambda: collections.defaultdict(dict))
alloc=collections.defaultdict(lambda: collections.defaultdict(dict))
for f in sorted(glob.glob(d+'/r*-*-*.json')):
    m=re.search(r'/r(\d+)-(\w+)-(old|head)\.json$',f)
    if not m: continue
    r,part,jar=int(m.group(1)),m.group(2),m.group(3)
    try: data=json.load(open(f))
    except Exception: continue
    for b in data:
        name='.'.join(b['benchmark'].split('.')[-2:])
        p=','.join(f"{k}={v}" for k,v in sorted(b.get('params',{}).items()) if k!='recordSize')
        key=(name,p,b['mode'],b['primaryMetric']['scoreUnit'])
        rows[key][r][jar]=b['primaryMetric']['score']
        sm=b.get('secondaryMetrics',{})
        a=sm.get('·gc.alloc.rate.norm') or sm.get('gc.alloc.rate.norm')
        if a: alloc[key][r][jar]=a['score']
print(f"{'benchmark':42} {'params':22} {'mode':6} {'old med':>11} {'head med':>11} {'med ratio':>9} {'n':>2} {'>=0.97':>6}  per-round head/old (higher=better for thrpt)   alloc B/op old/head")
for k in sorted(rows):
    rr=rows[k]
    ratios=[]
    for r in sorted(rr):
        if 'old' in rr[r] and 'head' in rr[r]:
            x=rr[r]['head']/rr[r]['old']
            if k[2] in ('avgt','sample','ss'): x=1/x
            ratios.append(x)
    if not ratios: continue
    o=statistics.median([v['old'] for v in rr.values() if 'old' in v]); h=statistics.median([v['head'] for v in rr.values() if 'head' in v])
    al=alloc.get(k,{})
    ao=[v['old'] for v in al.values() if 'old' in v]; ah=[v['head'] for v in al.values() if 'head' in v]
    ast=f"{statistics.median(ao):.1f}/{statistics.median(ah):.1f}" if ao and ah else ''
    print(f"{k[0][:42]:42} {k[1][:22]:22} {k[2]:6} {o:11.1f} {h:11.1f} {statistics.median(ratios):9.3f} {len(ratios):2} {sum(x>=0.97 for x in ratios):3}/{len(ratios)}  {' '.join(f'{x:.2f}' for x in ratios):40} {ast}")
