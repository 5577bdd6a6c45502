#!/usr/bin/env bash
# api18 profile step 2: DIRECT 1 producer latency, future path, callback path and raw O_DIRECT 4 KiB, same jar, one run.
set -u
cd /work/wt-api18
out=/work/runs/api18
jar=${JAR:-$out/old.jar}
tag=${TAG:-old}
echo "$(date -u +%T) p2 $tag start load $(cut -d' ' -f1 /proc/loadavg)" >> $out/timeline.txt
DIRECTLOG_BENCH_JAR=$jar DIRECTLOG_BENCH_RESULTS=$out/p2-direct-$tag.json benchmarks/run.sh \
  'log\.EngineAppend(Future)?Benchmark\.producers01$|raw\.RawOverwriteBenchmark\.producers01$' -p durability=DIRECT \
  -p recordSize=00100,01024,04096 -p impl=nativeio -p sync=DIRECT -f 1 -wi 3 -w 1 -i 5 -r 1 -bm sample > $out/p2-direct-$tag.log 2>&1
echo "$(date -u +%T) p2 $tag end load $(cut -d' ' -f1 /proc/loadavg)" >> $out/timeline.txt
