#!/usr/bin/env bash
# api18: old jar (main f78566e) against new jar (branch api18), alternating per part, ROUNDS rounds (order flips each
# round), 1 fork per jar per part, 3 x 1 s warm-up, 5 x 1 s measured. Relative figures only (shared 2-core machine).
set -u
cd /work/wt-api18
out=/work/runs/api18
common=(-f 1 -wi 3 -w 1 -i 5 -r 1)
run() { local r=$1 p=$2 j=$3; shift 3
  echo "$(date -u +%T) round $r part $p jar $j load $(cut -d' ' -f1 /proc/loadavg)" >> $out/ab-timeline.txt
  DIRECTLOG_BENCH_JAR=$out/$j.jar DIRECTLOG_BENCH_RESULTS=$out/ab2-r$r-$p-$j.json benchmarks/run.sh "$@" "${common[@]}" \
    > $out/ab2-r$r-$p-$j.log 2>&1; }
for r in ${ROUNDS:-1 2 3}; do
  if (( r % 2 )); then order="old new2"; else order="new2 old"; fi
  for j in $order; do run $r memory $j 'log\.EngineAppend(Future)?Benchmark\.producers01$' -p durability=MEMORY \
    -p recordSize=00100 -bm thrpt; done
  for j in $order; do run $r direct $j \
    'log\.EngineAppendFutureBenchmark\.producers01$|raw\.RawOverwriteBenchmark\.producers01$' -p durability=DIRECT \
    -p recordSize=00100,01024,04096 -p impl=nativeio -p sync=DIRECT -bm sample; done
done
echo "$(date -u +%T) done" >> $out/ab-timeline.txt
