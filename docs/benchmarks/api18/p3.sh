#!/usr/bin/env bash
# api18 profile step 3: strace -f -T of the forked JVM, DIRECT 1 producer, future path then callback path, 1 KiB and 4 KiB.
set -u
cd /work/wt-api18
out=/work/runs/api18
jar=${JAR:-$out/old.jar}
for b in EngineAppendFutureBenchmark EngineAppendBenchmark; do for s in 01024 04096; do
  STRACE_OUT=$out/strace-$b-$s.out DIRECTLOG_BENCH_JAR=$jar DIRECTLOG_BENCH_RESULTS=$out/p3-$b-$s.json benchmarks/run.sh \
    "log\\.$b\\.producers01\$" -p durability=DIRECT -p recordSize=$s -f 1 -wi 1 -w 1 -i 2 -r 1 -bm thrpt \
    -jvm $out/strace-java.sh > $out/p3-$b-$s.log 2>&1
done; done
