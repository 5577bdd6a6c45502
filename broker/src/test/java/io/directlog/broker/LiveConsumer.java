package io.directlog.broker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A kafka-clients consumer reading every partition of a topic on a thread of its own while faults happen (assigned,
 * no group: the group coordinator is one node and not replicated yet). It keeps what it saw at each offset, so the
 * test can check afterwards that nothing it was served was later replaced or dropped: a consumer must only ever
 * see committed records.
 * <p>
 * Thread-safe.
 */
final class LiveConsumer implements AutoCloseable
{
    private static final int MAX_POLLS = 1_000_000;

    private final Map<String, String> seen = new ConcurrentHashMap<>();
    private final AtomicLong conflicts = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    /** Served again at the same offset with the same value: the consumer's position went back (a reset). */
    private final AtomicLong redelivered = new AtomicLong();
    private final Thread thread;
    private volatile boolean stopping;

    private LiveConsumer(final String bootstrap, final String topic, final int partitions)
    {
        thread = new Thread(() -> run(bootstrap, topic, partitions), "live-consumer");
        thread.setDaemon(true);
    }

    static LiveConsumer start(final String bootstrap, final String topic, final int partitions)
    {
        final LiveConsumer c = new LiveConsumer(bootstrap, topic, partitions);
        c.thread.start();
        return c;
    }

    private void run(final String bootstrap, final String topic, final int partitions)
    {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        p.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
            new StringDeserializer()))
        {
            final List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++)
            {
                tps.add(new TopicPartition(topic, i));
            }
            consumer.assign(tps);
            for (int polls = 0; polls < MAX_POLLS && !stopping; polls++)
            {
                try
                {
                    for (final ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200)))
                    {
                        final String before = seen.putIfAbsent(r.partition() + "/" + r.offset(), r.value());
                        if (before != null)
                        {
                            (before.equals(r.value()) ? redelivered : conflicts).incrementAndGet();
                        }
                    }
                }
                catch (final KafkaException e)
                {
                    errors.incrementAndGet(); // a node being killed; the next poll goes on from the same position
                }
            }
        }
    }

    /** @return how many records it was served. */
    int seen()
    {
        return seen.size();
    }

    /** @return "partition/offset" to the value it was served there. */
    Map<String, String> served()
    {
        return Map.copyOf(seen);
    }

    /** @return how often an offset was served twice with different values. */
    long conflicts()
    {
        return conflicts.get();
    }

    long redelivered()
    {
        return redelivered.get();
    }

    long errors()
    {
        return errors.get();
    }

    @Override
    public void close()
    {
        stopping = true;
        try
        {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
