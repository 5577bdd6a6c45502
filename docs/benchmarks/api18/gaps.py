#!/usr/bin/env python3
"""From an strace -f -T -tt file: the writer's data pwrites (the thread with most pwrite64 of 4096/8192 bytes), their
durations and the gaps between the end of one and the start of the next; percentiles in microseconds."""
import re, sys, collections
def us(t):
    h, m, s = t.split(":"); return (int(h)*3600 + int(m)*60 + float(s)) * 1e6
for f in sys.argv[1:]:
    lines = open(f).read().splitlines()
    cnt = collections.Counter()
    for l in lines:
        m = re.match(r"(\d+) \S+ pwrite64\(\d+, .*?, (\d+), \d+", l)
        if m and m.group(2) in ("4096", "8192"): cnt[m.group(1)] += 1
    if not cnt: continue
    w = cnt.most_common(1)[0][0]
    starts = {}; durs = []; gaps = []; last_end = None; sizes = collections.Counter()
    pending = None
    for l in lines:
        if not l.startswith(w + " "): continue
        m = re.match(r"\d+ (\S+) pwrite64\((\d+), .*?, (\d+), (\d+)\)? ?(?:= \d+ <([\d.]+)>)?", l)
        if m and m.group(3) in ("4096", "8192"):
            start = us(m.group(1)); sizes[m.group(3)] += 1
            if last_end is not None: gaps.append(start - last_end)
            if m.group(5): durs.append(float(m.group(5))*1e6); last_end = start + float(m.group(5))*1e6
            else: pending = start
            continue
        m = re.match(r"\d+ (\S+) <\.\.\. pwrite64 resumed>.*<([\d.]+)>", l)
        if m and pending is not None:
            d = float(m.group(2))*1e6; durs.append(d); last_end = pending + d; pending = None; continue
        if re.match(r"\d+ \S+ (futex|fdatasync|write)", l): last_end = None  # another syscall between: not a plain gap
    def pct(a, p):
        a = sorted(a); return a[min(len(a)-1, int(len(a)*p))] if a else float('nan')
    print(f"{f}: writer {w} sizes {dict(sizes)}; pwrite us p50 {pct(durs,.5):.0f} p90 {pct(durs,.9):.0f}; "
          f"gap end->next start us p10 {pct(gaps,.1):.0f} p50 {pct(gaps,.5):.0f} p90 {pct(gaps,.9):.0f} (n={len(gaps)})")
