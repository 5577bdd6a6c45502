#!/usr/bin/env bash
# api18 profile step 1: MEMORY 1 producer, future path against callback path, same jar (main f78566e), one run.
set -u
cd /work/wt-api18
out=/work/runs/api18
jar=${JAR:-$out/old.jar}
echo "$(date -u +%T) p1 start load $(cut -d' ' -f1 /proc/loadavg)" >> $out/timeline.txt
DIRECTLOG_BENCH_JAR=$jar DIRECTLOG_BENCH_RESULTS=$out/p1-memory.json benchmarks/run.sh \
  'log\.EngineAppend(Future)?Benchmark\.producers01$' -p durability=MEMORY -p recordSize=00100 \
  -f 1 -wi 3 -w 1 -i 5 -r 1 -bm thrpt -prof 'stack:lines=4;top=12' > $out/p1-memory.log 2>&1
echo "$(date -u +%T) p1 end load $(cut -d' ' -f1 /proc/loadavg)" >> $out/timeline.txt
