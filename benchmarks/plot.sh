#!/usr/bin/env bash
# Regenerates the SVG plots and the results table from JMH JSON results.
#
#   benchmarks/plot.sh                         # every docs/benchmarks/jdk<N>/ directory (what matrix.sh writes)
#   benchmarks/plot.sh OUT_DIR a.json b.json   # any JSON files into OUT_DIR (later files win on repeats)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
jar=benchmarks/target/benchmarks.jar
if [[ ! -f "$jar" ]] || [[ -n "$(find benchmarks/src/main benchmarks/pom.xml -newer "$jar" -type f -print -quit)" ]]; then
  mvn -q -pl benchmarks -am package -DskipTests
fi
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
if [[ $# -gt 0 ]]; then
  exec "$java" -cp "$jar" io.directlog.benchmarks.report.PlotMain "$@"
fi
for dir in docs/benchmarks/jdk*/; do
  "$java" -cp "$jar" io.directlog.benchmarks.report.PlotMain "${dir%/}" "${dir%/}"/[0-9]*.json
done
