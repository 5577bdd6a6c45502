package io.directlog.kafka.baseline.load;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Drives one broker with kafka-clients: every producer is acks=all, idempotent, linger.ms=1 with the client's default
 * batch size; values are {@code recordBytes} long and carry their send (or due) time in the first 8 bytes
 * ({@link System#nanoTime()}, so the consumer measuring end-to-end latency runs in this JVM).
 * <p>
 * One phase at a time; not thread-safe.
 */
public final class LoadGenerator
{
    private static final long MAX_MICROS = TimeUnit.MINUTES.toMicros(10);
    /** How long a phase waits for outstanding acknowledgements after its last send; later ones count as failed. */
    private static final Duration DRAIN = Duration.ofSeconds(10);

    private final String bootstrap;

    /**
     * @param bootstrap the broker's {@code host:port}.
     */
    public LoadGenerator(final String bootstrap)
    {
        this.bootstrap = bootstrap;
    }

    /**
     * Creates a topic with replication factor 1 and waits for its leaders.
     *
     * @param name       the topic.
     * @param partitions how many partitions.
     * @param configs    topic configs, e.g. {@code flush.messages=1}.
     * @throws Exception when the broker refuses or does not answer in time.
     */
    public void createTopic(final String name, final int partitions, final Map<String, String> configs) throws Exception
    {
        createTopic(name, partitions, (short)1, configs);
    }

    /**
     * Creates a topic and waits for its leaders.
     *
     * @param name              the topic.
     * @param partitions        how many partitions.
     * @param replicationFactor replicas of each partition.
     * @param configs           topic configs, e.g. {@code min.insync.replicas=2}.
     * @throws Exception when the broker refuses or does not answer in time.
     */
    public void createTopic(final String name, final int partitions, final short replicationFactor,
        final Map<String, String> configs) throws Exception
    {
        final Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        // 1,000 partitions may take a broker longer than the client's default 30 s request timeout to create
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "120000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "150000");
        try (Admin admin = Admin.create(props))
        {
            admin.createTopics(List.of(new NewTopic(name, partitions, replicationFactor).configs(configs)),
                new CreateTopicsOptions().timeoutMs(120_000)).all().get(150, TimeUnit.SECONDS);
        }
        awaitTopic(name, partitions);
    }

    /**
     * Waits until a topic that exists (or is being created) has a leader for every partition that answers: for a
     * topic the broker declares itself, such as a DirectLog cluster's, whose Raft groups elect their leaders after
     * the nodes start.
     *
     * @param name       the topic.
     * @param partitions how many partitions it has.
     * @throws Exception when it has no leaders after a minute.
     */
    public void awaitTopic(final String name, final int partitions) throws Exception
    {
        // leaders known to a fresh client: metadata lists every partition
        try (KafkaConsumer<byte[], byte[]> c = consumer())
        {
            final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (true)
            {
                final List<PartitionInfo> infos = c.partitionsFor(name, Duration.ofSeconds(30));
                if (infos != null && infos.size() == partitions && infos.stream().allMatch(p -> p.leader() != null))
                {
                    // Kafka lists a leader before the partition serves: its first produce then gets
                    // NOT_LEADER_OR_FOLLOWER, after which idempotent producers looped on OUT_OF_ORDER_SEQUENCE_NUMBER
                    // here. endOffsets retries until every partition answers.
                    c.endOffsets(infos.stream().map(p -> new TopicPartition(name, p.partition())).toList(),
                        Duration.ofMinutes(1));
                    return;
                }
                if (System.nanoTime() - deadline > 0)
                {
                    throw new IllegalStateException("topic " + name + " has no leaders after a minute");
                }
                Thread.sleep(200);
            }
        }
    }

    /**
     * Produces for a while.
     *
     * @param topic       the topic.
     * @param producers   producer threads, one KafkaProducer each.
     * @param recordBytes value size, at least 8.
     * @param totalRate   records per second over all producers, open loop; 0 for as fast as acknowledgements allow.
     * @param duration    how long to send.
     * @param maxBytes    stop once this many value bytes were sent; {@link Long#MAX_VALUE} for no limit.
     * @param e2e         whether a consumer measures end-to-end latency.
     * @param backlogRead value bytes a consumer reads from the beginning of the topic meanwhile (0 for none); the
     *                    phase ends when it has read them, or at {@code duration}.
     * @return what was measured.
     * @throws Exception when a client fails.
     */
    public PhaseResult produce(final String topic, final int producers, final int recordBytes, final double totalRate,
        final Duration duration, final long maxBytes, final boolean e2e, final long backlogRead) throws Exception
    {
        final AtomicBoolean stop = new AtomicBoolean();
        final Histogram e2eHistogram = new Histogram(MAX_MICROS, 3);
        final AtomicLong readBytes = new AtomicLong();
        final double[] readSeconds = {0};
        final AtomicLong sentBytes = new AtomicLong();
        final AtomicBoolean readerDone = new AtomicBoolean(backlogRead <= 0);

        Thread reader = null;
        KafkaConsumer<byte[], byte[]> e2eConsumer = null;
        if (e2e)
        {
            e2eConsumer = consumer();
            final List<TopicPartition> parts = partitions(e2eConsumer, topic);
            e2eConsumer.assign(parts);
            e2eConsumer.seekToEnd(parts);
            parts.forEach(e2eConsumer::position);
        }
        final KafkaConsumer<byte[], byte[]> e2eFinal = e2eConsumer;
        final AtomicLong consumed = new AtomicLong();
        final Thread e2eThread = e2e ? new Thread(() ->
        {
            while (!stop.get())
            {
                for (final ConsumerRecord<byte[], byte[]> r : e2eFinal.poll(Duration.ofMillis(100)))
                {
                    final long now = System.nanoTime();
                    e2eHistogram.recordValue(clamp((now - ByteBuffer.wrap(r.value()).getLong(0)) / 1_000));
                    consumed.incrementAndGet();
                }
            }
        }, "loadgen-e2e") : null;
        if (backlogRead > 0)
        {
            reader = new Thread(() ->
            {
                try (KafkaConsumer<byte[], byte[]> c = consumer())
                {
                    final List<TopicPartition> parts = partitions(c, topic);
                    c.assign(parts);
                    c.seekToBeginning(parts);
                    final long start = System.nanoTime();
                    while (!stop.get() && readBytes.get() < backlogRead)
                    {
                        long n = 0;
                        for (final ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100)))
                        {
                            n += r.value().length;
                        }
                        readBytes.addAndGet(n);
                    }
                    readSeconds[0] = (System.nanoTime() - start) / 1e9;
                }
                finally
                {
                    readerDone.set(true);
                }
            }, "loadgen-backlog-reader");
        }

        final List<Sender> senders = new ArrayList<>();
        for (int i = 0; i < producers; i++)
        {
            senders.add(new Sender(topic, recordBytes, totalRate / producers, sentBytes, maxBytes));
        }
        final long start = System.nanoTime();
        final long end = start + duration.toNanos();
        final BooleanSupplier done = backlogRead > 0 ? () -> readerDone.get() || System.nanoTime() - end > 0 :
            () -> System.nanoTime() - end > 0;
        if (e2eThread != null)
        {
            e2eThread.start();
        }
        if (reader != null)
        {
            reader.start();
        }
        final List<Thread> threads = new ArrayList<>();
        for (final Sender s : senders)
        {
            final Thread t = new Thread(() -> s.run(start, done), "loadgen-producer");
            threads.add(t);
            t.start();
        }
        for (final Thread t : threads)
        {
            t.join();
        }
        long lastAck = start;
        long records = 0;
        long failures = 0;
        final Histogram publish = new Histogram(MAX_MICROS, 3);
        for (final Sender s : senders)
        {
            s.producer.close(DRAIN);
            lastAck = Math.max(lastAck, s.lastAckNanos);
            records += s.acked;
            failures += s.failed;
            publish.add(s.latency);
        }
        if (e2eThread != null)
        {
            final long deadline = System.nanoTime() + DRAIN.toNanos();
            while (consumed.get() < records && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(20);
            }
        }
        stop.set(true);
        if (e2eThread != null)
        {
            e2eThread.join();
            e2eFinal.close();
        }
        if (reader != null)
        {
            reader.join();
        }
        return new PhaseResult(records, records * recordBytes, (lastAck - start) / 1e9, publish, e2eHistogram,
            readBytes.get(), readSeconds[0], failures);
    }

    private static long clamp(final long micros)
    {
        return Math.max(0, Math.min(MAX_MICROS, micros));
    }

    private static List<TopicPartition> partitions(final KafkaConsumer<byte[], byte[]> c, final String topic)
    {
        return c.partitionsFor(topic, Duration.ofSeconds(30)).stream()
            .map(p -> new TopicPartition(topic, p.partition())).toList();
    }

    private KafkaConsumer<byte[], byte[]> consumer()
    {
        final Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** One producer thread; its callbacks run on the producer's I/O thread, so the counters are single-writer. */
    private final class Sender
    {
        final KafkaProducer<byte[], byte[]> producer;
        final Histogram latency = new Histogram(MAX_MICROS, 3);
        final String topic;
        final int recordBytes;
        final double rate;
        final AtomicLong sentBytes;
        final long maxBytes;
        volatile long acked;
        volatile long failed;
        volatile long lastAckNanos;

        Sender(final String topic, final int recordBytes, final double rate, final AtomicLong sentBytes,
            final long maxBytes)
        {
            final Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            props.put(ProducerConfig.LINGER_MS_CONFIG, "1");
            this.producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
            this.topic = topic;
            this.recordBytes = recordBytes;
            this.rate = rate;
            this.sentBytes = sentBytes;
            this.maxBytes = maxBytes;
        }

        void run(final long start, final BooleanSupplier done)
        {
            final double intervalNanos = rate > 0 ? 1e9 / rate : 0;
            long i = 0;
            while (!done.getAsBoolean() && sentBytes.addAndGet(recordBytes) <= maxBytes)
            {
                final long sendAt;
                if (rate > 0)
                {
                    sendAt = start + (long)(i * intervalNanos);
                    long wait;
                    while ((wait = sendAt - System.nanoTime()) > 0)
                    {
                        LockSupport.parkNanos(wait);
                    }
                }
                else
                {
                    sendAt = System.nanoTime();
                }
                i++;
                final byte[] value = new byte[recordBytes];
                ByteBuffer.wrap(value).putLong(0, sendAt);
                producer.send(new ProducerRecord<>(topic, value), (md, ex) ->
                {
                    final long now = System.nanoTime();
                    if (ex != null)
                    {
                        failed++;
                        return;
                    }
                    latency.recordValue(clamp((now - sendAt) / 1_000));
                    acked++;
                    lastAckNanos = now;
                });
            }
            // no flush(): it waits without a bound; produce() closes every producer with a bounded drain instead
        }
    }
}
