#!/usr/bin/env bash
# Issue 16 eleventh run: rows DSYNC 16, DSYNC 1, DIRECT 16 (100 B) and MEMORY 1, one fork each, variants in a rotating order.
# ROUNDS="1 2" bash trials3.sh OUT name@jar@jvm-options ...
set -u
cd "$(dirname "$0")/../../../.."
OUT=$1; shift
vars=("$@"); n=${#vars[@]}
for r in $ROUNDS; do
  for ((k = 0; k < n; k++)); do v=${vars[$(((k + r) % n))]}
    IFS=@ read -r name jar mp <<< "$v"
    for row in "DSYNC producers16" "DSYNC producers01" "DIRECT producers16" "MEMORY producers01"; do
      read -r dur bench <<< "$row"
      extra=(); [[ -n "$mp" ]] && extra=(-jvmArgsAppend "$mp")
      DIRECTLOG_BENCH_JAR=$jar DIRECTLOG_BENCH_RESULTS=$OUT/r$r-$name-$dur-$bench.json benchmarks/run.sh "log\.EngineAppendBenchmark\.$bench\$" -p recordSize=00100 -p durability=$dur -bm thrpt -f 1 -wi 4 -w 1 -i 5 -r 1 "${extra[@]}" > $OUT/r$r-$name-$dur-$bench.log 2>&1
      s=$(python3 -c "import json,sys; d=json.load(open('$OUT/r$r-$name-$dur-$bench.json')); print(round(d[0]['primaryMetric']['score']))" 2>/dev/null)
      echo "$(date +%T) r$r $name $dur $bench $s load $(cut -d' ' -f1 /proc/loadavg)" | tee -a $OUT/summary.txt
    done
  done
done
