#!/usr/bin/env bash
# The published benchmark run: every suite, in one sitting, so the engine and its peers share the machine's
# conditions. JSON goes to docs/benchmarks/jdk<N>/NN-<part>.json, then plot.sh draws docs/benchmarks/jdk<N>/.
#
#   benchmarks/matrix.sh              # the matrix on the JDK on the PATH (or $JAVA_HOME): about 30 minutes here
#   benchmarks/matrix.sh --targets    # only what the targets in docs/benchmarks.md need: about 7 minutes
#   JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 benchmarks/matrix.sh --targets
#   benchmarks/matrix.sh --targets --out docs/benchmarks/jdk17-targets   # beside a full run, not over it
#
# Settings: 1 fork, 2 x 1 s warmup, 3 x 1 s measurement (JMH_OPTS overrides them), -prof gc. That is shorter than
# the suites' own defaults (2 forks, 5 + 10 iterations; benchmarks/run.sh with no arguments), so that the whole
# matrix fits one sitting on a shared machine; the +- column in the tables says how much that costs.
# The machine must be otherwise idle: check `uptime` before and after, both are recorded next to the JSON.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
targets_only=false
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --targets) targets_only=true; shift ;;
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    *) echo "matrix.sh: unknown argument '$1' (expected --targets, --out DIR)" >&2; exit 2 ;;
  esac
done
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
jdk="$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
out="${out:-docs/benchmarks/jdk${jdk}}"
mkdir -p "$out"
# a run replaces the one before it: its JSON files go, or a part this run does not write would win in the plots
rm -f "$out"/[0-9]*.json "$out"/waiter-park.json "$out"/interleaved-latency-pairs.*
# build once, then run a copy: a rebuild during the run cannot change what is measured
mvn -q -pl benchmarks -am package -DskipTests
jar="$(mktemp -d)/benchmarks.jar"
cp benchmarks/target/benchmarks.jar "$jar"
read -r -a opts <<< "${JMH_OPTS:--f 1 -wi 2 -w 1s -i 3 -r 1s}"

part() {
  local name="$1"
  shift
  echo "=== $name: $*" >&2
  DIRECTLOG_BENCH_JAR="$jar" DIRECTLOG_BENCH_RESULTS="$out/$name.json" benchmarks/run.sh "$@" "${opts[@]}"
  strip_histograms "$out/$name.json"
}

# SampleTime's raw histograms make the JSON megabytes long; JMH's own percentiles stay, and the report uses those.
strip_histograms() {
  command -v python3 >/dev/null 2>&1 || return 0
  python3 - "$1" <<'PY'
import json, sys
path = sys.argv[1]
with open(path) as f:
    results = json.load(f)
for r in results:
    r["primaryMetric"].pop("rawDataHistogram", None)
    r["primaryMetric"].pop("rawData", None)
with open(path, "w") as f:
    json.dump(results, f, indent=1)
PY
}

{
  echo "start $(date -u +%FT%TZ) jdk=$jdk commit=$(git rev-parse --short HEAD) targets_only=$targets_only"
  echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/run-info.txt"

if $targets_only; then
  part 01-raw 'raw\.RawOverwriteBenchmark\.producers(01|16)$' 'raw\.RawSequentialBenchmark' -p impl=nativeio
  part 02-engine-append 'log\.EngineAppendBenchmark\.producers(01|16|64)$' -p recordSize=00100
  part 03-engine-append-16k 'log\.EngineAppendBenchmark\.producers16$' \
    'log\.EngineAppendPipelinedBenchmark\.producers16$' -p recordSize=16384 -p durability=DIRECT -bm thrpt
  part 04-engine-pipelined 'log\.EngineAppendPipelinedBenchmark\.producers01$' -p durability=MEMORY \
    -p recordSize=00032,00100
  part 05-engine-reads 'log\.(EngineTailReadBenchmark|EngineCacheReadBenchmark|EngineColdReplayBenchmark)'
  part 06-peers 'peers\.RocksDbWalBenchmark\.producers(01|16|64)$' 'peers\.ChronicleQueueBenchmark\.producers01$' \
    -p recordSize=00100 -p sync=true,false
  # the same closed loop with producers that park at once (no digit first: not plotted, never wins over 02)
  part waiter-park 'log\.EngineAppendBenchmark\.producers(16|64)$' -p recordSize=00100 -p durability=DSYNC,DIRECT \
    -bm thrpt -jvmArgsAppend -Ddirectlog.bench.waiter=park
else
  part 01-raw 'raw\.RawOverwriteBenchmark' 'raw\.RawSequentialBenchmark' -p impl=nativeio
  part 02-raw-read 'raw\.RawReadBenchmark' -p chunk=0065536,1048576 -bm thrpt
  part 03-engine-append 'log\.EngineAppendBenchmark'
  part 04-engine-pipelined 'log\.EngineAppendPipelinedBenchmark'
  part 05-engine-future 'log\.EngineAppendFutureBenchmark' -p recordSize=00100
  part 06-engine-reads 'log\.(EngineTailReadBenchmark|EngineCacheReadBenchmark|EngineColdReplayBenchmark|EngineRandomReadBenchmark)'
  part 07-rocksdb 'peers\.RocksDbWalBenchmark' -p recordSize=00100,16384
  part 08-filechannel-mmap 'peers\.(FileChannelAppendBenchmark|MappedBufferAppendBenchmark)' -p recordSize=00100,16384
  part 09-chronicle 'peers\.ChronicleQueueBenchmark\.producers(01|16)$' -p recordSize=00032,00100,16384
  part 10-peer-reads 'peers\.(RocksDbReadBenchmark|ChronicleReadBenchmark)'
fi
# The 16 x 16 KiB bandwidth target compares the engine with the raw 1 MiB sequential write, which drifts as much
# as the reads below: the engine's closed loop and pipelined producers, then the raw writes, back to back. Six
# warm-up seconds: a fresh log writes its first 256 MiB into new files and reuses files only once retention gives
# them back, and the rates here still climbed for about five seconds.
echo "=== 96-bandwidth-pair" >&2
DIRECTLOG_BENCH_JAR="$jar" DIRECTLOG_BENCH_RESULTS="$out/96-bandwidth-pair.json" benchmarks/run.sh \
  'log\.EngineAppendBenchmark\.producers16$' 'log\.EngineAppendPipelinedBenchmark\.producers16$' \
  'raw\.RawSequentialBenchmark\.write(1m|256k)$' -p recordSize=16384 -p durability=DIRECT -p impl=nativeio -bm thrpt \
  -f 1 -wi 6 -w 1s -i 4 -r 1s
strip_histograms "$out/96-bandwidth-pair.json"
# The cold replay target compares the engine with the raw device's sequential read, whose bandwidth here moves by
# up to 2x within minutes. So the pair is measured again near the end, back to back: the engine's replay (after its
# 2 GiB fill), then raw 1 MiB O_DIRECT reads. Later files win in the tables and plots.
part 97-replay-pair-engine 'log\.EngineColdReplayBenchmark'
part 98-replay-pair-raw 'raw\.RawSequentialBenchmark\.read1m$' -p impl=nativeio
# The 1-producer latency targets compare the engine with the raw device, and this device's own 4 KiB write latency
# drifts by a third within minutes (38 to 54 us p50 here). So the pair is measured again last, back to back within
# about a minute: engine DIRECT and DSYNC, then raw DIRECT and DSYNC. Later files win in the tables and plots.
part 99-latency-pairs 'log\.EngineAppendBenchmark\.producers01$' 'raw\.RawOverwriteBenchmark\.producers01$' \
  -bm sample -p recordSize=00100 -p durability=DIRECT,DSYNC -p impl=nativeio -p sync=DIRECT,DSYNC
# The same pair once more, with the drift taken out: the engine and the raw device take turns in 500 ms rounds in
# one JVM (InterleavedLatencyPair), and each round's ratio compares p50s measured within a second of each other.
echo "=== interleaved-latency-pairs" >&2
"$java" --add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED \
  --enable-native-access=ALL-UNNAMED -Xms2g -Xmx2g -XX:MaxDirectMemorySize=2g \
  -Ddirectlog.bench.dir="${DIRECTLOG_BENCH_DIR:-$root/benchmarks/target/bench-data}" \
  -cp "$jar" io.directlog.benchmarks.log.InterleavedLatencyPair --rounds 20 \
  --json "$out/interleaved-latency-pairs.json" | tee "$out/interleaved-latency-pairs.txt"

{
  echo "end $(date -u +%FT%TZ)"
  echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
} >> "$out/run-info.txt"
"$java" -cp "$jar" io.directlog.benchmarks.report.PlotMain "$out" "$out"/[0-9]*.json
