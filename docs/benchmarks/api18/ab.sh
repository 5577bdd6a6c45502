#!/usr/bin/env bash
# api18: old jar (main f78566e) against a new jar, alternating per part, ROUNDS rounds (order flips each round),
# 1 fork per jar per part, 3 x 1 s warm-up, 5 x 1 s measured. Relative figures only (shared 2-core machine).
# The two runs behind docs/benchmarks.md (issue 18), each reproduced by:
#   ab:  ./ab.sh                        (new.jar = 1f9023c; DIRECT part: future and callback paths, and raw)
#   ab2: NAME=ab2 NEW=new2 DIRECT='log\.EngineAppendFutureBenchmark' ROUNDS='1 2' ./ab.sh
#                                       (new2.jar = 45306fd, the final commit; DIRECT part: future path and raw)
set -u
cd /work/wt-api18
out=/work/runs/api18  # holds old.jar and the new jar; results go to $NAME-r<round>-<part>-<jar>.json, steps to ab-timeline.txt
name=${NAME:-ab}
new=${NEW:-new}
direct=${DIRECT:-'log\.EngineAppend(Future)?Benchmark'}
common=(-f 1 -wi 3 -w 1 -i 5 -r 1)
run() { local r=$1 p=$2 j=$3; shift 3
  echo "$(date -u +%T) round $r part $p jar $j load $(cut -d' ' -f1 /proc/loadavg)" >> $out/ab-timeline.txt
  DIRECTLOG_BENCH_JAR=$out/$j.jar DIRECTLOG_BENCH_RESULTS=$out/$name-r$r-$p-$j.json benchmarks/run.sh "$@" "${common[@]}" \
    > $out/$name-r$r-$p-$j.log 2>&1; }
for r in ${ROUNDS:-1 2 3}; do
  if (( r % 2 )); then order="old $new"; else order="$new old"; fi
  for j in $order; do run $r memory $j 'log\.EngineAppend(Future)?Benchmark\.producers01$' -p durability=MEMORY \
    -p recordSize=00100 -bm thrpt; done
  for j in $order; do run $r direct $j \
    "$direct"'\.producers01$|raw\.RawOverwriteBenchmark\.producers01$' -p durability=DIRECT \
    -p recordSize=00100,01024,04096 -p impl=nativeio -p sync=DIRECT -bm sample; done
done
echo "$(date -u +%T) done" >> $out/ab-timeline.txt
