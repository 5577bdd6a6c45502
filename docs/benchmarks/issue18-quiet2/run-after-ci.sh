#!/usr/bin/env bash
# After CI, quiet: issue 18's tail-lag rows (part 3) and 1,000 DSYNC logs against one (part 1), one run each.
set -u
cd /work/main
out=/work/runs/q34
echo "$(date -u +%T) tail-lag load $(cut -d' ' -f1 /proc/loadavg)" >> $out/timeline.txt
DIRECTLOG_NO_BUILD=1 ./directlog bench --only tail-lag-memory-10k,tail-lag-memory-100k,tail-lag-memory-1m,tail-lag-dsync-10k,tail-lag-dsync-100k,tail-lag-dsync-1m \
  --json $out/taillag.json > $out/taillag.txt 2>&1
echo "$(date -u +%T) many-logs load $(cut -d' ' -f1 /proc/loadavg)" >> $out/timeline.txt
DIRECTLOG_NO_BUILD=1 ./directlog bench --only engine-dsync,engine-many-logs --logs 1000 --json $out/manylogs.json > $out/manylogs.txt 2>&1
echo "$(date -u +%T) done" >> $out/timeline.txt
touch $out/DONE
