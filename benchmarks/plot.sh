#!/usr/bin/env bash
# Regenerates the SVG plots and the results table in docs/benchmarks/ from JMH JSON results.
#
#   benchmarks/plot.sh                              # every docs/benchmarks/results-*.json
#   benchmarks/plot.sh docs/benchmarks/results-jdk17-reduced.json
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
jar=benchmarks/target/benchmarks.jar
if [[ ! -f "$jar" ]] || [[ -n "$(find benchmarks/src/main benchmarks/pom.xml -newer "$jar" -type f -print -quit)" ]]; then
  mvn -q -pl benchmarks -am package -DskipTests
fi
if [[ $# -eq 0 ]]; then
  set -- docs/benchmarks/results-*.json
fi
exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" -cp "$jar" io.directlog.benchmarks.report.PlotMain docs/benchmarks "$@"
