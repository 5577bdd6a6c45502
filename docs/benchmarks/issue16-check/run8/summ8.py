# Medians of per-round ratios B/A (A=old B=head by default) from ab8.sh's JSON:
#   D=<dir> A=old B=head [R=2,3,4] python3 summ8.py     (R: only these rounds)
import json, glob, statistics, collections, re, os
d = os.environ['D']; a = os.environ.get('A', 'old'); b = os.environ.get('B', 'head')
only = {int(x) for x in os.environ['R'].split(',')} if os.environ.get('R') else None
rows = collections.defaultdict(lambda: collections.defaultdict(dict))
alloc = collections.defaultdict(lambda: collections.defaultdict(dict))
for f in sorted(glob.glob(d + '/r*-*-*.json')):
    m = re.search(r'/r(\d+)-(\w+)-(\w+)\.json$', f)
    if not m or m.group(3) not in (a, b):
        continue
    r, jar = int(m.group(1)), m.group(3)
    if only is not None and r not in only:
        continue
    try:
        data = json.load(open(f))
    except Exception:
        continue
    for x in data:
        name = '.'.join(x['benchmark'].split('.')[-2:])
        p = ','.join(f"{k}={v}" for k, v in sorted(x.get('params', {}).items()) if k != 'recordSize')
        key = (name, p, x['mode'])
        rows[key][r][jar] = x['primaryMetric']['score']
        sm = x.get('secondaryMetrics', {})
        al = sm.get('·gc.alloc.rate.norm') or sm.get('gc.alloc.rate.norm')
        if al:
            alloc[key][r][jar] = al['score']
print(f"{'benchmark':42} {'params':22} {'mode':6} {a + ' med':>11} {b + ' med':>11} {'med ratio':>9} {'n':>2} {'>=0.97':>6}  per-round {b}/{a}   alloc B/op {a}/{b}")
for k in sorted(rows):
    rr = rows[k]
    ratios = []
    for r in sorted(rr):
        if a in rr[r] and b in rr[r]:
            x = rr[r][b] / rr[r][a]
            ratios.append(1 / x if k[2] in ('avgt', 'sample', 'ss') else x)
    if not ratios:
        continue
    o = statistics.median([v[a] for v in rr.values() if a in v]); h = statistics.median([v[b] for v in rr.values() if b in v])
    al = alloc.get(k, {}); ao = [v[a] for v in al.values() if a in v]; ah = [v[b] for v in al.values() if b in v]
    ast = f"{statistics.median(ao):.1f}/{statistics.median(ah):.1f}" if ao and ah else ''
    print(f"{k[0][:42]:42} {k[1][:22]:22} {k[2]:6} {o:11.1f} {h:11.1f} {statistics.median(ratios):9.3f} {len(ratios):2} {sum(x >= 0.97 for x in ratios):3}/{len(ratios)}  {' '.join(f'{x:.2f}' for x in ratios):30} {ast}")
