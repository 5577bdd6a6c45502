#!/usr/bin/env bash
# api18: the co-located case on purpose: the whole JMH run (producer and writer) confined to CPU 1 with taskset,
# MEMORY 1 producer 100 B, future and callback paths, old jar against new, alternating, ROUNDS rounds.
set -u
cd /work/wt-api18
out=/work/runs/api18
for r in ${ROUNDS:-1 2}; do
  if (( r % 2 )); then order="old new"; else order="new old"; fi
  for j in $order; do
    echo "$(date -u +%T) colo round $r jar $j load $(cut -d' ' -f1 /proc/loadavg)" >> $out/ab-timeline.txt
    DIRECTLOG_BENCH_JAR=$out/$j.jar DIRECTLOG_BENCH_RESULTS=$out/colo-r$r-$j.json taskset -c 1 benchmarks/run.sh \
      'log\.EngineAppend(Future)?Benchmark\.producers01$' -p durability=MEMORY -p recordSize=00100 -bm thrpt \
      -f 1 -wi 3 -w 1 -i 5 -r 1 > $out/colo-r$r-$j.log 2>&1
  done
done
