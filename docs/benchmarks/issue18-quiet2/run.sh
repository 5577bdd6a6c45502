#!/usr/bin/env bash
# Quiet window: issue 16's A/B (old 42a8ab1 against the merged head, 4 rounds), then issue 18's plain-API rows twice.
set -u
cd /work/main
echo "$(date -u +%T) start load $(cut -d' ' -f1 /proc/loadavg)" >> /work/runs/q33/timeline.txt
OUT=/work/runs/ab33 ROUNDS='1 2 3 4' bash docs/benchmarks/issue16-check/run3/ab3.sh > /work/runs/ab33/ab.log 2>&1
for r in 1 2; do
  echo "$(date -u +%T) bench run $r load $(cut -d' ' -f1 /proc/loadavg)" >> /work/runs/q33/timeline.txt
  DIRECTLOG_NO_BUILD=1 ./directlog bench --only raw-direct-4k,raw-dsync-4k,api-memory,api-direct,api-direct-1k,api-direct-4k,api-dsync,api-dsync-1k,api-dsync-4k,rocksdb-sync --duration 2 \
    --json /work/runs/q33/bench$r.json > /work/runs/q33/bench$r.txt 2>&1
done
echo "$(date -u +%T) done" >> /work/runs/q33/timeline.txt
touch /work/runs/q33/DONE
