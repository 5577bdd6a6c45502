#!/usr/bin/env bash
# Runs the queue example as an application would be run, with no JVM option, and fails if anything is printed on
# stderr (a JDK warning, a log line) or the example fails. On each JDK:
#   1. java -jar directlog-examples.jar           no option: the jar's manifest has Add-Opens and Enable-Native-Access
#   2. java -cp <jar>:lib/* ... (no option)        must fail at once, with a message naming the --add-opens flag
#   3. java <the two documented options> -cp ...   must work
#   4. java --add-opens ... -cp ... (no --enable-native-access): works; on JDK 24+ stderr carries exactly the JDK's
#      restricted-method warning for JNA's System::load (documented in the README), on older JDKs nothing
#   5. the same jars on the module path (the example, storage-core and storage-native are named modules with a
#      module-info; Agrona and JNA automatic ones): refused without options, naming the module-path form
#      of the flag (--add-opens java.base/jdk.internal.misc=org.agrona); works with nothing on stderr with
#      --add-opens java.base/jdk.internal.misc=org.agrona --enable-native-access=com.sun.jna
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

# run NAME EXPECT(ok|refused|refused-module|ok-jna-warning) java-args...
run() {
  local name="$1" expect="$2"; shift 2
  local rc=0
  runs=$((runs + 1))
  "$@" "$stores/store-$runs" >"$tmp/out" 2>"$tmp/err" || rc=$?
  local why=""
  if [ "$expect" = ok-jna-warning ]; then
    # the JDK's four-line warning naming JNA and the flag, and nothing else
    if ! grep -q "java.lang.System::load has been called by com.sun.jna.Native" "$tmp/err" ||
       ! grep -qF -- "--enable-native-access=ALL-UNNAMED" "$tmp/err" ||
       grep -v '^WARNING: ' "$tmp/err" | grep -q .; then
      why="stderr is not the JDK's restricted-method warning for JNA"
    fi
    expect=ok
  elif [ -s "$tmp/err" ]; then why="stderr is not empty"; fi
  if [ "$expect" = ok ] && { [ $rc -ne 0 ] || ! grep -q "queue example: ok" "$tmp/out"; }; then why="${why:+$why; }exit $rc, not ok"; fi
  if [ "$expect" = refused-module ] && { [ $rc -eq 0 ] || ! grep -qF -- "--add-opens java.base/jdk.internal.misc=org.agrona " "$tmp/out"; }; then
    why="${why:+$why; }exit $rc, expected a refusal naming the module-path flag"
  fi
  if [ "$expect" = refused ] && { [ $rc -eq 0 ] || ! grep -qF -- "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED" "$tmp/out"; }; then
    why="${why:+$why; }exit $rc, expected a refusal naming the flag"
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
  echo "bare-jvm-check on JDK $(major "$h") ($h)"
  run "java -jar (no option; manifest Add-Opens + Enable-Native-Access)" ok "$java" -jar "$jar"
  run "java -cp, no option: refused at LogStore.open naming the flag" refused "$java" -cp "$jar:$here/target/lib/*" io.directlog.examples.QueueExample
  run "java -cp with ${flags[*]}" ok "$java" "${flags[@]}" -cp "$jar:$here/target/lib/*" io.directlog.examples.QueueExample
  module="$( (unzip -p "$jar" META-INF/MANIFEST.MF 2>/dev/null || true) | sed -n 's/^Automatic-Module-Name: //p' | tr -d '\r')"
  module="${module:-io.directlog.examples}"  # the examples' module name (module-info.java), where unzip is missing
  run "module path, no option: refused naming the flag for org.agrona" refused-module \
    "$java" -p "$jar:$here/target/lib" -m "$module/io.directlog.examples.QueueExample"
  run "module path with --add-opens ...=org.agrona --enable-native-access=com.sun.jna" ok \
    "$java" --add-opens java.base/jdk.internal.misc=org.agrona --enable-native-access=com.sun.jna \
    -p "$jar:$here/target/lib" -m "$module/io.directlog.examples.QueueExample"
  m="$(major "$h")"
  if [ "$m" -ge 24 ]; then
    run "java -cp with ${flags[0]} ${flags[1]} only: works, the JDK warns about JNA's native access" ok-jna-warning \
      "$java" "${flags[0]}" "${flags[1]}" -cp "$jar:$here/target/lib/*" io.directlog.examples.QueueExample
  else
    run "java -cp with ${flags[0]} ${flags[1]} only: works, nothing on stderr before JDK 24" ok \
      "$java" "${flags[0]}" "${flags[1]}" -cp "$jar:$here/target/lib/*" io.directlog.examples.QueueExample
  fi
done

if [ $failures -ne 0 ]; then
  echo "bare-jvm-check: $failures failed"
  exit 1
fi
echo "bare-jvm-check: all passed"
