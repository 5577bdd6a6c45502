#!/usr/bin/env bash
# api18 profile step 4: per-thread CPU, context switches, futex and sched_yield calls of the forked JVM during
# measurement (perf stat --per-thread), for the benchmark regex $1 and params; ops/s from the JMH log of the same run.
set -u
cd /work/wt-api18
out=/work/runs/api18
jar=${JAR:-$out/old.jar}
tag=$1; shift
DIRECTLOG_BENCH_JAR=$jar DIRECTLOG_BENCH_RESULTS=$out/p4-$tag.json benchmarks/run.sh "$@" -f 1 -wi 3 -w 1 -i 6 -r 1 -bm thrpt \
  > $out/p4-$tag.log 2>&1 &
runner=$!
fork=
for i in $(seq 100); do
  fork=$(pgrep -f ForkedMain | while read p; do a=$p; while [ "$a" -gt 1 ]; do [ "$a" = "$runner" ] && echo $p && break; a=$(ps -o ppid= -p $a | tr -d ' '); [ -z "$a" ] && break; done; done | head -1)
  [ -n "$fork" ] && break; sleep 0.2
done
# wait for the measurement iterations
for i in $(seq 200); do grep -q "^Iteration   1" $out/p4-$tag.log && break; sleep 0.2; done
perf stat --per-thread -e task-clock,context-switches,cpu-migrations,syscalls:sys_enter_futex,syscalls:sys_enter_sched_yield,syscalls:sys_enter_pwrite64,syscalls:sys_enter_pwritev2 \
  -p $fork -o $out/p4-$tag.perf -- sleep 4
wait $runner
