#!/usr/bin/env bash
# After CI, quiet: issue 18's plain-API rows against the raw device (3 runs), then issue 16's JMH check on the merged head.
set -u
cd /work/main
out=/work/runs/q31
for r in 1 2 3; do
  echo "$(date -u +%T) bench run $r load $(cut -d' ' -f1 /proc/loadavg)" >> $out/timeline.txt
  DIRECTLOG_NO_BUILD=1 ./directlog bench --only raw-direct-4k,raw-dsync-4k,api-memory,api-direct,api-direct-1k,api-direct-4k,api-dsync \
    --json $out/bench$r.json > $out/bench$r.txt 2>&1
done
echo "$(date -u +%T) jmh start load $(cut -d' ' -f1 /proc/loadavg)" >> $out/timeline.txt
/work/runs/jmh16c/ab3.sh > $out/jmh.out 2>&1
echo "$(date -u +%T) done" >> $out/timeline.txt
