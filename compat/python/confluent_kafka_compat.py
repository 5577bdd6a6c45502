"""confluent-kafka (Python, bundling librdkafka 2.16) against a Kafka-protocol broker.

Usage: confluent_kafka_compat.py BOOTSTRAP PREFIX. Prints a CASE line per case and a COMPAT-SUMMARY line; exit 0 when
every case passed. Every wait is bounded.
"""
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition, OFFSET_BEGINNING
from confluent_kafka.admin import AdminClient, NewTopic

import compat_report
from compat_report import Report, expect_equal, expect_resumed, record, run_cases

CLIENT = "confluent-kafka"
WAIT_S = 30


def main(bootstrap, prefix):
    topic, group_topic, group = f"{prefix}-ck", f"{prefix}-ck-group", f"{prefix}-ck-group"
    base = {"bootstrap.servers": bootstrap, "socket.timeout.ms": 10000}
    report = Report(CLIENT)

    def create_topics():
        admin = AdminClient(base)
        futures = admin.create_topics([NewTopic(t, num_partitions=2, replication_factor=1) for t in (topic, group_topic)],
                                      operation_timeout=WAIT_S, request_timeout=WAIT_S)
        for f in futures.values():
            f.result(timeout=WAIT_S)
        meta = admin.list_topics(timeout=WAIT_S)
        for t in (topic, group_topic):
            assert t in meta.topics and len(meta.topics[t].partitions) == 2, f"{t} not listed with 2 partitions"
        return "2 topics of 2 partitions, listed in metadata"

    def produce(t, seqs, tag):
        producer = Producer({**base, "enable.idempotence": True, "acks": "all", "compression.type": "zstd",
                             "linger.ms": 5})
        results = []
        for i in seqs:
            producer.produce(t, key=f"key-{i}", value=f"{tag}-{i}", partition=i % 2,
                             headers=[("source", b"confluent-kafka"), ("seq", str(i).encode())],
                             on_delivery=lambda err, msg: results.append((err, msg.partition(), msg.offset())))
        left = producer.flush(WAIT_S)
        assert left == 0, f"{left} records not delivered in {WAIT_S}s"
        errors = [r[0] for r in results if r[0] is not None]
        assert not errors, f"delivery errors: {errors[:3]}"
        return results

    def expected(seqs, tag):
        return {record(f"key-{i}", f"{tag}-{i}", [("source", "confluent-kafka"), ("seq", str(i))]) for i in seqs}

    def produce_case():
        results = produce(topic, range(20), "value")
        for p in (0, 1):
            offsets = sorted(o for _, part, o in results if part == p)
            assert offsets == list(range(10)), f"partition {p} offsets {offsets}"
        return "20 records with keys and 2 headers, zstd, idempotent acks=all; offsets 0..9 in each partition"

    def consume_case():
        consumer = Consumer({**base, "group.id": f"{prefix}-ck-assign", "enable.auto.commit": False})
        try:
            consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in (0, 1)])
            got = poll_until(consumer, 20)
        finally:
            consumer.close()
        expect_equal(expected(range(20), "value"), {r for r, _ in got}, "records read with assign()")
        assert len(got) == 20, f"{len(got)} records read, want 20 (duplicates)"
        return "20 records back by assign() from the beginning, keys and headers intact"

    members = []

    def group_two_members():
        for name in ("a", "b"):
            c = Consumer({**base, "group.id": group, "auto.offset.reset": "earliest", "enable.auto.commit": False,
                          "client.id": f"member-{name}", "session.timeout.ms": 10000})
            c.subscribe([group_topic])
            members.append(c)
        # Both members must hold a partition before records exist, so none is read twice across a rebalance.
        deadline = time.monotonic() + WAIT_S
        while not all(len(m.assignment()) == 1 for m in members):
            assert time.monotonic() < deadline, f"assignments {[len(m.assignment()) for m in members]}"
            for m in members:
                m.poll(0.2)
        produce(group_topic, range(20), "group")
        per_member = [[], []]
        deadline = time.monotonic() + WAIT_S
        while sum(map(len, per_member)) < 20 and time.monotonic() < deadline:
            for i, m in enumerate(members):
                msg = m.poll(0.2)
                if msg is not None and msg.error() is None:
                    per_member[i].append((record(msg.key(), msg.value(), msg.headers()), msg.partition()))
        for i, m in enumerate(members):
            parts = {p for _, p in per_member[i]}
            assert parts == {m.assignment()[0].partition}, f"member {i} read partitions {parts}"
            m.commit(asynchronous=False)
        expect_equal(expected(range(20), "group"), {r for rs in per_member for r, _ in rs}, "records read by the group")
        return f"one partition each, {len(per_member[0])}+{len(per_member[1])} records, committed synchronously"

    def group_resume():
        for m in members:
            m.close()
        produce(group_topic, range(20, 30), "group")
        consumer = Consumer({**base, "group.id": group, "auto.offset.reset": "earliest", "enable.auto.commit": False})
        try:
            consumer.subscribe([group_topic])
            got = poll_until(consumer, 10, quiet_s=2)
        finally:
            consumer.close()
        return expect_resumed(expected(range(20, 30), "group"), [r for r, _ in got])

    return run_cases(report, create_topics, produce_case, consume_case, group_two_members, group_resume)


def poll_until(consumer, count, quiet_s=0.0):
    """Polls until count records (then quiet_s more, to catch extras) or WAIT_S; returns [(record, partition)]."""
    def batch():
        msg = consumer.poll(0.2)
        if msg is None:
            return []
        if msg.error() is None:
            return [(record(msg.key(), msg.value(), msg.headers()), msg.partition())]
        if msg.error().code() != KafkaError._PARTITION_EOF:
            raise AssertionError(f"consumer error {msg.error()}")
        return []
    return compat_report.poll_until(batch, count, WAIT_S, quiet_s)


if __name__ == "__main__":
    compat_report.entry(main)
