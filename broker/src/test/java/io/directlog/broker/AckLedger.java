package io.directlog.broker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Every record value the cluster acknowledged, with the partition and offset it was acknowledged at, and the check
 * that the committed log holds each of them there exactly once. Values are unique per test.
 * <p>
 * Thread-safe: producer callbacks record, the test thread checks.
 */
final class AckLedger
{
    /**
     * Where a record is.
     *
     * @param partition its partition.
     * @param offset    its offset.
     */
    record At(int partition, long offset)
    {
    }

    /**
     * What a read-back found.
     *
     * @param checked    acknowledged records looked for.
     * @param lost       acknowledged records not at their acknowledged offset.
     * @param duplicated values stored more than once.
     * @param stored     every stored value and where, for further checks.
     */
    record Check(int checked, int lost, int duplicated, Map<String, List<At>> stored)
    {
    }

    private final Map<String, At> acked = new ConcurrentHashMap<>();
    /** Values acknowledged at two different places. */
    private final java.util.concurrent.atomic.AtomicInteger lost = new java.util.concurrent.atomic.AtomicInteger();

    /** Records an acknowledgement (on a client's thread: a conflict is counted, not thrown into the client). */
    void acked(final String value, final int partition, final long offset)
    {
        final At previous = acked.putIfAbsent(value, new At(partition, offset));
        if (previous != null && !previous.equals(new At(partition, offset)))
        {
            System.out.println("ACKED-TWICE " + value + " at " + previous + " and " + partition + "/" + offset);
            lost.incrementAndGet(); // one of the two places does not hold it
        }
    }

    int size()
    {
        return acked.size();
    }

    /**
     * Reads each partition from its start to {@code highWatermarks[p]} with a plain consumer (no group) and looks up
     * every acknowledged record.
     *
     * @param bootstrap      the cluster's addresses.
     * @param topic          the topic.
     * @param highWatermarks each partition's high watermark, as every replica agreed on it.
     * @param timeout        how long the read may take.
     * @return what was found.
     * @throws AssertionError when the read stalls.
     */
    Check readBack(final String bootstrap, final String topic, final long[] highWatermarks, final Duration timeout)
    {
        final Map<String, List<At>> stored = new HashMap<>();
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int)timeout.toMillis());
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(p, new StringDeserializer(),
            new StringDeserializer()))
        {
            final List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < highWatermarks.length; i++)
            {
                tps.add(new TopicPartition(topic, i));
            }
            reader.assign(tps);
            reader.seekToBeginning(tps);
            final long deadline = System.nanoTime() + timeout.toNanos();
            while (tps.stream().anyMatch(tp -> reader.position(tp, timeout) < highWatermarks[tp.partition()]))
            {
                if (System.nanoTime() > deadline)
                {
                    throw new AssertionError("reading " + topic + " back stalled below " +
                        java.util.Arrays.toString(highWatermarks));
                }
                for (final ConsumerRecord<String, String> r : reader.poll(Duration.ofMillis(200)))
                {
                    if (r.offset() < highWatermarks[r.partition()])
                    {
                        stored.computeIfAbsent(r.value(), v -> new ArrayList<>()).add(new At(r.partition(), r.offset()));
                    }
                }
            }
        }
        int lost = this.lost.get();
        for (final Map.Entry<String, At> e : acked.entrySet())
        {
            final List<At> at = stored.get(e.getKey());
            if (at == null || !at.contains(e.getValue()))
            {
                lost++;
                if (lost <= 10)
                {
                    System.out.println("LOST " + e.getKey() + " acknowledged at " + e.getValue() + ", stored at " + at);
                }
            }
        }
        final int duplicated = (int)stored.values().stream().filter(l -> l.size() > 1).count();
        return new Check(acked.size(), lost, duplicated, stored);
    }
}
