#!/usr/bin/env bash
# Issue 16's old-against-new check and issue 19's before-and-after in one run: the jars named in JARS (default
# "old main head": 42a8ab1, the previous main, the head) run one after another per part, in an order that rotates
# every round, 4 warm-up and 5 measured 1 s iterations, 1 fork per jar per part. summ8.py gives the medians of
# per-round ratios for any two of them.
#   OUT=<dir holding old.jar main.jar head.jar> ROUNDS='1 2 3 4' bash ab8.sh
set -u
cd "$(dirname "$0")/../../../.."
out=${OUT:?OUT must name the directory holding the jars}
read -r -a jars <<< "${JARS:-old main head}"
common=(-f 1 -wi 4 -w 1 -i 5 -r 1)
run() { local r=$1 p=$2 j=$3; shift 3
  echo "$(date -u +%T) round $r part $p jar $j load $(cut -d' ' -f1 /proc/loadavg)" >> "$out/timeline.txt"
  DIRECTLOG_BENCH_JAR=$out/$j.jar DIRECTLOG_BENCH_RESULTS=$out/r$r-$p-$j.json benchmarks/run.sh "$@" "${common[@]}" > "$out/r$r-$p-$j.log" 2>&1; }
for r in ${ROUNDS:-1 2 3 4}; do
  n=${#jars[@]}; order=()
  for ((i = 0; i < n; i++)); do order+=("${jars[$(((i + r) % n))]}"); done
  for j in "${order[@]}"; do run "$r" append "$j" 'log\.EngineAppendBenchmark\.producers(01|16|64)$' -p recordSize=00100 -bm thrpt; done
  for j in "${order[@]}"; do run "$r" pipelined "$j" 'log\.EngineAppendPipelinedBenchmark\.producers01$' -p durability=MEMORY -p recordSize=00100; done
  for j in "${order[@]}"; do run "$r" reads "$j" 'log\.(EngineTailReadBenchmark|EngineColdReplayBenchmark)'; done
done
echo "$(date -u +%T) done" >> "$out/timeline.txt"
touch "$out/DONE"
