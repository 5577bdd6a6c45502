"""kafka-python (pure Python) against a Kafka-protocol broker.

Usage: kafka_python_compat.py BOOTSTRAP PREFIX. Prints a CASE line per case and a COMPAT-SUMMARY line; exit 0 when
every case passed. Every wait is bounded. The two group members run in threads of their own: a kafka-python
consumer joins its group inside poll(), which can wait for the other member's join.
"""
import threading
import time

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic

import compat_report
from compat_report import Report, expect_equal, expect_resumed, record, run_cases

CLIENT = "kafka-python"
WAIT_S = 30


def main(bootstrap, prefix):
    topic, group_topic, group = f"{prefix}-kp", f"{prefix}-kp-group", f"{prefix}-kp-group"
    base = {"bootstrap_servers": bootstrap, "request_timeout_ms": 30000}
    report = Report(CLIENT)

    def create_topics():
        admin = KafkaAdminClient(**base)
        try:
            admin.create_topics([NewTopic(t, 2, 1) for t in (topic, group_topic)], timeout_ms=WAIT_S * 1000)
            described = {d["name"]: len(d["partitions"]) for d in admin.describe_topics([topic, group_topic])}
        finally:
            admin.close()
        assert described == {topic: 2, group_topic: 2}, f"described {described}"
        return "2 topics of 2 partitions, described"

    def produce(t, seqs, tag):
        producer = KafkaProducer(**base, acks="all", compression_type="gzip", linger_ms=5)
        try:
            futures = [producer.send(t, key=f"key-{i}".encode(), value=f"{tag}-{i}".encode(), partition=i % 2,
                                     headers=[("source", b"kafka-python"), ("seq", str(i).encode())]) for i in seqs]
            producer.flush(timeout=WAIT_S)
            return [f.get(timeout=WAIT_S) for f in futures]
        finally:
            producer.close(timeout=WAIT_S)

    def expected(seqs, tag):
        return {record(f"key-{i}", f"{tag}-{i}", [("source", "kafka-python"), ("seq", str(i))]) for i in seqs}

    def produce_case():
        metas = produce(topic, range(20), "value")
        for p in (0, 1):
            offsets = sorted(m.offset for m in metas if m.partition == p)
            assert offsets == list(range(10)), f"partition {p} offsets {offsets}"
        return "20 records with keys and 2 headers, gzip, acks=all; offsets 0..9 in each partition"

    def consume_case():
        consumer = KafkaConsumer(**base, enable_auto_commit=False)
        try:
            parts = [TopicPartition(topic, p) for p in (0, 1)]
            consumer.assign(parts)
            consumer.seek_to_beginning(*parts)
            got = poll_until(consumer, 20)
        finally:
            consumer.close()
        expect_equal(expected(range(20), "value"), set(got), "records read with assign()")
        assert len(got) == 20, f"{len(got)} records read, want 20 (duplicates)"
        return "20 records back by assign() + seek_to_beginning, keys and headers intact"

    def group_two_members():
        # Each member: join, wait until both are assigned, read until the group has every record, commit, close.
        assigned = threading.Barrier(3, timeout=WAIT_S)
        per_member = [[], []]
        errors = []
        total = lambda: sum(map(len, per_member))

        def member(i):
            consumer = KafkaConsumer(**base, group_id=group, client_id=f"member-{i}", auto_offset_reset="earliest",
                                     enable_auto_commit=False, session_timeout_ms=10000)
            try:
                consumer.subscribe([group_topic])
                deadline = time.monotonic() + WAIT_S
                while len(consumer.assignment()) != 1 and time.monotonic() < deadline:
                    consumer.poll(timeout_ms=200)
                assigned.wait()
                deadline = time.monotonic() + WAIT_S
                while total() < 20 and time.monotonic() < deadline:
                    for recs in consumer.poll(timeout_ms=200).values():
                        per_member[i].extend((record(r.key, r.value, r.headers), r.partition) for r in recs)
                consumer.commit()
                per_member[i].append(("assignment", tuple(tp.partition for tp in consumer.assignment())))
            except Exception as ex:  # reported by the case below
                errors.append(f"member {i}: {ex!r}")
                assigned.abort()
            finally:
                consumer.close()

        threads = [threading.Thread(target=member, args=(i,), daemon=True) for i in (0, 1)]
        for t in threads:
            t.start()
        assigned.wait()  # both members hold a partition before any record exists
        produce(group_topic, range(20), "group")
        for t in threads:
            t.join(WAIT_S * 2)
        assert not errors, errors
        assert not any(t.is_alive() for t in threads), "a member did not finish"
        read = set()
        for i, rs in enumerate(per_member):
            _, assignment = rs.pop()
            parts = {p for _, p in rs}
            assert len(assignment) == 1 and parts == set(assignment), f"member {i} assigned {assignment}, read {parts}"
            read |= {r for r, _ in rs}
        expect_equal(expected(range(20), "group"), read, "records read by the group")
        return f"one partition each, {len(per_member[0])}+{len(per_member[1])} records, committed"

    def group_resume():
        produce(group_topic, range(20, 30), "group")
        consumer = KafkaConsumer(**base, group_id=group, auto_offset_reset="earliest", enable_auto_commit=False)
        try:
            consumer.subscribe([group_topic])
            got = poll_until(consumer, 10, quiet_s=2)
        finally:
            consumer.close()
        return expect_resumed(expected(range(20, 30), "group"), got)

    return run_cases(report, create_topics, produce_case, consume_case, group_two_members, group_resume)


def poll_until(consumer, count, quiet_s=0.0):
    """Polls until count records (then quiet_s more, to catch extras) or WAIT_S; returns the records."""
    def batch():
        return [record(r.key, r.value, r.headers) for recs in consumer.poll(timeout_ms=200).values() for r in recs]
    return compat_report.poll_until(batch, count, WAIT_S, quiet_s)


if __name__ == "__main__":
    compat_report.entry(main)
