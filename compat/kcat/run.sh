#!/usr/bin/env bash
# kcat (Debian's kcat 1.7 on librdkafka 2.0) against a Kafka-protocol broker.
# Usage: run.sh BOOTSTRAP PREFIX. Prints "CASE kcat <name> PASS|FAIL <detail>" per case and one COMPAT-SUMMARY line;
# exits 0 only when every case passed. kcat has no admin commands: the topic is created by the first produce
# (the broker's auto.create.topics.enable, on by default), so it has the broker's default partition count (1).
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BOOTSTRAP PREFIX" >&2; exit 2; }
BOOTSTRAP=$1
TOPIC="$2-kcat"
GROUP="$2-kcat-group"
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$WORK"' EXIT
passed=0
failed=0

report() { # name PASS|FAIL detail
  echo "CASE kcat $1 $2 $3"
  if [ "$2" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
kc() { timeout 30 kcat -b "$BOOTSTRAP" -X socket.timeout.ms=10000 "$@"; }
FORMAT='%k|%s|%h\n'

# metadata: the broker answers Metadata with itself and its advertised address.
if kc -L > "$WORK/meta" 2>&1 && grep -q "at $BOOTSTRAP" "$WORK/meta"; then
  report metadata PASS "broker advertised at $BOOTSTRAP"
else
  report metadata FAIL "$(tr '\n' ' ' < "$WORK/meta" | cut -c1-300)"
fi

# produce: 10 keyed records with two headers (lz4, idempotent, acks=all) into a topic that does not exist yet.
# kcat sets the same headers on every record, so seq is a fixed header here and the value carries the sequence.
for i in $(seq 1 10); do echo "key-$i:value-$i"; done > "$WORK/in"
if kc -P -t "$TOPIC" -K: -H source=kcat -H seq=fixed -z lz4 -X enable.idempotence=true -X acks=all \
    < "$WORK/in" > "$WORK/produce" 2>&1; then
  report produce PASS "10 records, keys and 2 headers, lz4, idempotent"
else
  report produce FAIL "kcat -P exit $?: $(tr '\n' ' ' < "$WORK/produce" | cut -c1-300)"
fi

# consume: read the partition from the beginning to its end; keys, values and headers must come back in order.
for i in $(seq 1 10); do echo "key-$i|value-$i|source=kcat,seq=fixed"; done > "$WORK/want"
kc -C -t "$TOPIC" -o beginning -e -q -f "$FORMAT" > "$WORK/got" 2> "$WORK/consume.err"
if cmp -s "$WORK/want" "$WORK/got"; then
  report consume PASS "10 records back in order with keys and headers"
else
  report consume FAIL "got $(wc -l < "$WORK/got") lines, first difference: $(diff "$WORK/want" "$WORK/got" | head -3 | tr '\n' ' ')"
fi

# group-two-members: two balanced consumers (-G) in one group share the topic; together they read every record.
# They commit offsets automatically and once more when closed by SIGTERM.
# -u: unbuffered output, so the records a member has read can be counted while it runs.
member() { # name
  timeout 60 kcat -b "$BOOTSTRAP" -q -u -f "$FORMAT" -X auto.offset.reset=earliest -X auto.commit.interval.ms=200 \
    -G "$GROUP" "$TOPIC" > "$WORK/$1.out" 2> "$WORK/$1.err" &
}
member member-a
a=$!
member member-b
b=$!
deadline=$((SECONDS + 30))
while [ "$(cat "$WORK/member-a.out" "$WORK/member-b.out" | wc -l)" -lt 10 ] && [ $SECONDS -lt $deadline ]; do sleep 0.5; done
sleep 1 # let the auto-commit after the last record happen before the close
kill -TERM "$a" "$b" 2>/dev/null
wait "$a" "$b" 2>/dev/null
sort -u "$WORK/member-a.out" "$WORK/member-b.out" > "$WORK/union"
sort "$WORK/want" > "$WORK/want.sorted"
total=$(cat "$WORK/member-a.out" "$WORK/member-b.out" | wc -l)
group_passed=false
if cmp -s "$WORK/want.sorted" "$WORK/union"; then
  group_passed=true
  report group-two-members PASS "members read $(wc -l < "$WORK/member-a.out")+$(wc -l < "$WORK/member-b.out") records, all 10 distinct ($((total - 10)) re-read)"
else
  report group-two-members FAIL "union of members has $(wc -l < "$WORK/union") of 10 records: $(head -c 300 "$WORK/member-a.err" "$WORK/member-b.err" | tr '\n' ' ')"
fi

# group-resume: after 5 more records, a new member of the same group starts at the committed offset and sees only those.
for i in $(seq 11 15); do echo "key-$i:value-$i"; done > "$WORK/in2"
kc -P -t "$TOPIC" -K: -H source=kcat -H seq=fixed -X acks=all < "$WORK/in2" > /dev/null 2>&1
for i in $(seq 11 15); do echo "key-$i|value-$i|source=kcat,seq=fixed"; done > "$WORK/want2"
timeout 40 kcat -b "$BOOTSTRAP" -q -e -f "$FORMAT" -X auto.offset.reset=earliest -G "$GROUP" "$TOPIC" \
  > "$WORK/resume.out" 2> "$WORK/resume.err"
if ! $group_passed; then
  report group-resume FAIL "not run: it resumes from the offsets group-two-members commits, and that case failed"
elif cmp -s "$WORK/want2" "$WORK/resume.out"; then
  report group-resume PASS "resumed at the committed offset: exactly the 5 new records"
else
  report group-resume FAIL "got $(wc -l < "$WORK/resume.out") records (want the 5 new ones): $(head -3 "$WORK/resume.out" | tr '\n' ' ') $(head -c 200 "$WORK/resume.err" | tr '\n' ' ')"
fi

echo "COMPAT-SUMMARY client=kcat passed=$passed failed=$failed"
[ "$failed" -eq 0 ]
