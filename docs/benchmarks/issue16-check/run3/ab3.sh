#!/usr/bin/env bash
# Issue 16's check, longer: old jar (42a8ab1) against a head (f78566e in run3, c16a2c2 in run4 with ROUNDS='1 2 3'), alternating per part, 5 rounds, 5 measured
# 1 s iterations after 4 warm-up ones, 1 fork per jar per part. The medians of per-round ratios are the figures.
set -u
cd /work/main
out=${OUT:-/work/runs/jmh16b}  # holds old.jar and head.jar; results and timeline.txt go here
common=(-f 1 -wi 4 -w 1 -i 5 -r 1)
run() { local r=$1 p=$2 j=$3; shift 3
  echo "$(date -u +%T) round $r part $p jar $j load $(cut -d' ' -f1 /proc/loadavg)" >> $out/timeline.txt
  DIRECTLOG_BENCH_JAR=$out/$j.jar DIRECTLOG_BENCH_RESULTS=$out/r$r-$p-$j.json benchmarks/run.sh "$@" "${common[@]}" > $out/r$r-$p-$j.log 2>&1; }
for r in ${ROUNDS:-1 2 3 4 5}; do
  if (( r % 2 )); then order="old head"; else order="head old"; fi
  for j in $order; do run $r append $j 'log\.EngineAppendBenchmark\.producers(01|16|64)$' -p recordSize=00100 -bm thrpt; done
  for j in $order; do run $r pipelined $j 'log\.EngineAppendPipelinedBenchmark\.producers01$' -p durability=MEMORY -p recordSize=00100; done
  for j in $order; do run $r reads $j 'log\.(EngineTailReadBenchmark|EngineColdReplayBenchmark)'; done
done
echo "$(date -u +%T) done" >> $out/timeline.txt
touch $out/DONE
