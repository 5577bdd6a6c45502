#!/usr/bin/env bash
# old against head, alternating: CPU ns per append of producer and writer (pipelined MEMORY, 100 B).
for r in 1 2 3; do for j in old head; do
  echo "== round $r $j load $(cut -d' ' -f1 /proc/loadavg)"
  rm -rf /work/runs/cpu16/data; mkdir -p /work/runs/cpu16/data
  java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED \
    --enable-native-access=ALL-UNNAMED -Xms2g -Xmx2g -XX:MaxDirectMemorySize=2g \
    -Ddirectlog.bench.dir=/work/runs/cpu16/data -cp cls-$j:/work/runs/jmh16b/$j.jar \
    io.directlog.benchmarks.log.CpuPerAppend 5000000 6 2>&1 | grep -v "^WARN\|SLF4J"
done; done
