#!/usr/bin/env python3
"""Per round of ab.sh: MEMORY ops/s (future, callback) new/old, and DIRECT p50 over the same JVM run's raw p50."""
import json, glob, re
def load(f):
    try: return json.load(open(f))
    except Exception: return None
for r in sorted({re.search(r"ab-r(\d+)-", f).group(1) for f in glob.glob("ab-r*-*.json")}, key=int):
    row = [f"round {r}:"]
    m = {j: load(f"ab-r{r}-memory-{j}.json") for j in ("old", "new")}
    if all(m.values()):
        def ops(d, b): return next(x["primaryMetric"]["score"] for x in d if x["benchmark"].endswith(b + ".producers01"))
        for b, label in (("EngineAppendFutureBenchmark", "future"), ("EngineAppendBenchmark", "callback")):
            o, n = ops(m["old"], b), ops(m["new"], b)
            row.append(f"MEMORY {label} old {o:,.0f} new {n:,.0f} ({n/o:.2f}x)")
    d = {j: load(f"ab-r{r}-direct-{j}.json") for j in ("old", "new")}
    if all(d.values()):
        for j in ("old", "new"):
            raw = next(x for x in d[j] if "RawOverwrite" in x["benchmark"])["primaryMetric"]["scorePercentiles"]["50.0"]
            parts = []
            for b, label in (("EngineAppendFutureBenchmark", "fut"), ("EngineAppendBenchmark", "cb")):
                for s in ("00100", "01024", "04096"):
                    x = next(x for x in d[j] if x["benchmark"].endswith(b + ".producers01") and x["params"]["recordSize"] == s)
                    parts.append(f"{label}{int(s)} {x['primaryMetric']['scorePercentiles']['50.0']/raw:.2f}")
            row.append(f"DIRECT/{j} raw p50 {raw*1e6:.1f} us: " + " ".join(parts))
    print("\n  ".join(row))
