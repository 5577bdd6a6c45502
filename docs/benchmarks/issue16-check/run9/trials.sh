#!/usr/bin/env bash
# Issue 16 trials: rows DSYNC 16, DIRECT 64, DIRECT 16 producers (100 B), one fork each, per variant in an order
# that rotates every round. ROUNDS="1 2 3 4" bash trials.sh OUT name@jar@jvm-options ... (options may be empty)
# ROWS="DSYNC producers16,DSYNC producers01" runs other rows (durability and benchmark method, comma-separated).
set -u
cd "$(dirname "$0")/../../../.."
OUT=$1; shift
vars=("$@"); n=${#vars[@]}
for r in $ROUNDS; do
  for ((k = 0; k < n; k++)); do v=${vars[$(((k + r) % n))]}
    IFS=@ read -r name jar mp <<< "$v"
    IFS=, read -r -a rows <<< "${ROWS:-DSYNC producers16,DIRECT producers64,DIRECT producers16}"
    for row in "${rows[@]}"; do
      read -r dur bench <<< "$row"
      extra=(); [[ -n "$mp" ]] && extra=(-jvmArgsAppend "$mp")
      DIRECTLOG_BENCH_JAR=$jar DIRECTLOG_BENCH_RESULTS=$OUT/r$r-$name-$dur-$bench.json benchmarks/run.sh "log\.EngineAppendBenchmark\.$bench\$" -p recordSize=00100 -p durability=$dur -bm thrpt -f 1 -wi 4 -w 1 -i 5 -r 1 "${extra[@]}" > $OUT/r$r-$name-$dur-$bench.log 2>&1
      s=$(python3 -c "import json,sys; d=json.load(open('$OUT/r$r-$name-$dur-$bench.json')); print(round(d[0]['primaryMetric']['score']))" 2>/dev/null)
      echo "$(date +%T) r$r $name $dur $bench $s load $(cut -d' ' -f1 /proc/loadavg)" | tee -a $OUT/summary.txt
    done
  done
done
