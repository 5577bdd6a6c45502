#!/usr/bin/env bash
# Runs the queue example as an application would be run, and fails if anything is printed on stderr (a JDK
# warning, a log line), if the example fails, or if the engine chose other I/O than expected. On each JDK:
#   1. java -jar directlog-examples.jar           no option: the jar's manifest has Add-Opens and
#                                                 Enable-Native-Access, so the native layer runs
#   2. java -cp <jar>:lib/* ... (no option)        works, on the JDK's own O_DIRECT I/O and buffers of DirectLog's
#                                                 own (no Unsafe, no JNA): nothing on stderr
#   3. java <the two documented options> -cp ...   the native layer
#   4. java --add-opens ... -cp ... only           JDK 24+: the JDK's I/O (loading JNA would print the JDK's
#                                                 restricted-method warning); older JDKs: the native layer
#   5. java --enable-native-access ... -cp ... only  the JDK's I/O (Agrona's Unsafe buffers need the add-opens)
#   6. the same jars on the module path (the example, storage-core and storage-native are named modules with a
#      module-info; Agrona and JNA automatic ones): with no option the JDK's I/O; with
#      --add-opens java.base/jdk.internal.misc=org.agrona --enable-native-access=com.sun.jna the native layer
#
# usage: examples/bare-jvm-check.sh [JAVA_HOME ...]
#   JDKs: the arguments; else $BARE_JVM_JAVA_HOME (the JDK running Maven, set by the build) or java on the PATH,
#   plus every JDK 17+ in /usr/lib/jvm whose major version is not yet covered (17 and 25 on our machines).
# Needs 'mvn -B -DskipTests install' (or package) first: it runs examples/target/directlog-examples.jar.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/directlog-examples.jar"
[ -f "$jar" ] || { echo "bare-jvm-check: $jar is missing; run 'mvn -B -DskipTests install' first" >&2; exit 2; }
flags=(--add-opens java.base/jdk.internal.misc=ALL-UNNAMED --enable-native-access=ALL-UNNAMED)

major() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }

homes=()
if [ $# -gt 0 ]; then
  homes=("$@")
else
  if [ -n "${BARE_JVM_JAVA_HOME:-}" ]; then homes+=("$BARE_JVM_JAVA_HOME")
  elif [ -n "${JAVA_HOME:-}" ]; then homes+=("$JAVA_HOME")
  else homes+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"); fi
  seen=" $(major "${homes[0]}") "
  for h in /usr/lib/jvm/*/; do
    h="${h%/}"
    [ -x "$h/bin/java" ] || continue
    m="$(major "$h" || true)"
    case "$m" in ''|1.*|9|1[0-6]) continue ;; esac
    [[ "$seen" == *" $m "* ]] && continue
    seen="$seen$m "
    homes+=("$h")
  done
fi

failures=0
tmp="$(mktemp -d)"
# the stores go under target/, not /tmp: where /tmp is a tmpfs (no O_DIRECT) the engine's fallback warning would
# be the stderr output this script forbids
stores="$here/target/bare-jvm-check"
rm -rf "$stores"
mkdir -p "$stores"
trap 'rm -rf "$tmp" "$stores"' EXIT
runs=0

# run NAME EXPECT(native|jdk) java-args...: the example must print ok, nothing may reach stderr, and the I/O the
# store chose must be the expected one
run() {
  local name="$1" expect="$2"; shift 2
  local rc=0
  runs=$((runs + 1))
  "$@" "$stores/store-$runs" >"$tmp/out" 2>"$tmp/err" || rc=$?
  local why=""
  if [ -s "$tmp/err" ]; then why="stderr is not empty"; fi
  if [ $rc -ne 0 ] || ! grep -q "queue example: ok" "$tmp/out"; then why="${why:+$why; }exit $rc, not ok"; fi
  local io="native O_DIRECT"
  [ "$expect" = jdk ] && io="O_DIRECT through the JDK"
  if ! grep -q "queue example: io $io" "$tmp/out"; then
    why="${why:+$why; }the store did not use $io ($(sed -n 's/^queue example: io //p' "$tmp/out"))"
  fi
  if [ -z "$why" ]; then
    echo "  ok    $name"
  else
    echo "  FAIL  $name: $why"
    sed 's/^/        out: /' "$tmp/out" | head -20
    sed 's/^/        err: /' "$tmp/err" | head -20
    failures=$((failures + 1))
  fi
}

for h in "${homes[@]}"; do
  java="$h/bin/java"
  m="$(major "$h")"
  cp="$jar:$here/target/lib/*"
  main=io.directlog.examples.QueueExample
  echo "bare-jvm-check on JDK $m ($h)"
  run "java -jar (no option; manifest Add-Opens + Enable-Native-Access): native layer" native "$java" -jar "$jar"
  run "java -cp, no option: the JDK's I/O, nothing printed" jdk "$java" -cp "$cp" "$main"
  run "java -cp with ${flags[*]}: native layer" native "$java" "${flags[@]}" -cp "$cp" "$main"
  if [ "$m" -ge 24 ]; then
    run "java -cp with ${flags[0]} ${flags[1]} only: the JDK's I/O (JNA would make the JDK warn)" jdk \
      "$java" "${flags[0]}" "${flags[1]}" -cp "$cp" "$main"
  else
    run "java -cp with ${flags[0]} ${flags[1]} only: native layer (no warning before JDK 24)" native \
      "$java" "${flags[0]}" "${flags[1]}" -cp "$cp" "$main"
  fi
  run "java -cp with ${flags[2]} only: the JDK's I/O" jdk "$java" "${flags[2]}" -cp "$cp" "$main"
  module="$( (unzip -p "$jar" META-INF/MANIFEST.MF 2>/dev/null || true) | sed -n 's/^Automatic-Module-Name: //p' | tr -d '\r')"
  module="${module:-io.directlog.examples}"  # the examples' module name (module-info.java), where unzip is missing
  run "module path, no option: the JDK's I/O" jdk "$java" -p "$jar:$here/target/lib" -m "$module/$main"
  run "module path with --add-opens ...=org.agrona --enable-native-access=com.sun.jna: native layer" native \
    "$java" --add-opens java.base/jdk.internal.misc=org.agrona --enable-native-access=com.sun.jna \
    -p "$jar:$here/target/lib" -m "$module/$main"
done

if [ $failures -ne 0 ]; then
  echo "bare-jvm-check: $failures failed"
  exit 1
fi
echo "bare-jvm-check: all passed"
