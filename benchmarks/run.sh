#!/usr/bin/env bash
# Runs the JMH suites and writes JSON results to benchmarks/target/results-jdk<N>.json (matrix.sh: the published run).
#
#   benchmarks/run.sh                      # the full matrix (hours: 2 forks, 5x1 s warmup, 10x1 s measurement)
#   benchmarks/run.sh 'RocksDbWal' -f 1    # any JMH arguments: a regex of benchmarks, -p key=value, -t, -f, -wi, -i ...
#
# Builds benchmarks/target/benchmarks.jar first when it is missing or older than the sources.
# Environment:
#   DIRECTLOG_BENCH_DIR      where benchmark data goes (default benchmarks/target/bench-data; must be the disk
#                            being measured, never tmpfs)
#   DIRECTLOG_BENCH_RESULTS  the JSON file (default benchmarks/target/results-jdk<N>.json)
#   DIRECTLOG_BENCH_JAR      run another copy of the jar (so a rebuild cannot pull it from under a long run)
#   JAVA_HOME                the JDK to run on
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
jar="${DIRECTLOG_BENCH_JAR:-benchmarks/target/benchmarks.jar}"
if [[ -z "${DIRECTLOG_BENCH_JAR:-}" ]]; then
  if [[ ! -f "$jar" ]] || [[ -n "$(find benchmarks/src/main benchmarks/pom.xml -newer "$jar" -type f -print -quit)" ]]; then
    mvn -q -pl benchmarks -am package -DskipTests  # -am: the engine as it is in this tree, never a stale installed copy
  fi
fi
jdk="$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
results="${DIRECTLOG_BENCH_RESULTS:-benchmarks/target/results-jdk${jdk}.json}"
data="${DIRECTLOG_BENCH_DIR:-$root/benchmarks/target/bench-data}"
mkdir -p "$(dirname "$results")" "$data"
# The forks inherit these host flags and add their own @Fork flags (heap, direct memory, Chronicle's --add-opens).
exec "$java" \
  --add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED \
  --enable-native-access=ALL-UNNAMED \
  -Ddirectlog.bench.dir="$data" -Dchronicle.analytics.disable=true \
  -jar "$jar" -rf json -rff "$results" -prof gc "$@"
