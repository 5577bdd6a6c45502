#!/usr/bin/env python3
"""Prints each JMH JSON result: benchmark, params, throughput (ops/s) or SampleTime p50/p99 (us), gc alloc B/op."""
import json, sys
for f in sys.argv[1:]:
    try:
        data = json.load(open(f))
    except Exception as e:
        print(f, "unreadable", e); continue
    for r in data:
        name = r["benchmark"].split(".")[-2] + "." + r["benchmark"].split(".")[-1]
        params = ",".join(f"{k}={v}" for k, v in sorted((r.get("params") or {}).items()))
        pm = r["primaryMetric"]
        if r["mode"] == "thrpt":
            val = f"{pm['score']:12,.0f} ops/s"
        else:
            p = pm["scorePercentiles"]
            val = f"p50 {p['50.0']*1e6:8.1f} us  p99 {p['99.0']*1e6:8.1f} us"
        alloc = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score")
        a = f" alloc {alloc:7.1f} B/op" if alloc is not None else ""
        print(f"{f.split('/')[-1]:28s} {name:45s} {params:45s} {r['mode']:6s} {val}{a}")
