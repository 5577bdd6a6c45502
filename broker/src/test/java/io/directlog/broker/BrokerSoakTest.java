package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.util.internal.PlatformDependent;

/**
 * The broker's soak (issue 20, {@code -Psoak}): for {@code -Ddirectlog.soak.seconds} (default 600) two idempotent
 * acks=all producers send numbered 1 KiB records at a fixed rate into a four-partition topic whose retention keeps
 * the disk bounded, a group consumer follows the tail and commits, a second consumer re-reads each partition from
 * its log start (cold reads, fetch buffers over evicted pages), and every sample period a new Admin connection and
 * a connection that sends garbage come and go. It samples the broker process's direct memory (Netty's allocator,
 * Netty's own counter, the JDK's direct buffer pool), heap after GC and open descriptors, and asserts that each is
 * flat after warm-up, that every acknowledged record reached the group consumer exactly once, that no page stays
 * pinned by a fetched batch once the consumers closed, and that no Netty buffer leaked (paranoid leak detection).
 * <p>
 * The broker runs in this JVM, so the samples include the clients' own buffers; they are bounded by their configs
 * and must be flat too.
 */
@Tag("soak")
@ExtendWith(NettyLeakCheck.class)
@Timeout(value = 2, unit = TimeUnit.HOURS)
class BrokerSoakTest
{
    private static final long SECONDS = Long.getLong("directlog.soak.seconds", 600);
    private static final long SAMPLE_MILLIS = Math.max(1_000, Math.min(10_000, SECONDS * 1000 / 20));
    private static final int PRODUCERS = 2;
    private static final int PARTITIONS = 4;
    private static final int RECORDS_PER_SECOND_EACH = Integer.getInteger("directlog.soak.rate", 1_000);
    private static final int VALUE_BYTES = 1024;
    private static final String TOPIC = "soak";
    /**
     * Records sent but not yet received that the producers may have out: far below what retention keeps (four
     * partitions of 8 MiB, about 32,000 records), so a consumer slowed by a loaded machine slows the producers
     * instead of having retention delete what it has not read yet.
     */
    private static final int MAX_UNREAD = 4_000;
    /** What a steady state may still move by: the pooled allocator's chunk (4 MiB in Netty 4.1/4.2) and slack. */
    private static final long DIRECT_SLACK = 16L << 20;
    private static final long HEAP_SLACK = 64L << 20;
    private static final int FD_SLACK = 32;

    private record Sample(long atMillis, long nettyPooled, long nettyCounter, long jdkDirect, long heapAfterGc,
        long fds)
    {
    }

    private final AtomicBoolean stop = new AtomicBoolean();
    private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    private final BitSet[] acked = new BitSet[PRODUCERS];
    private final BitSet[] received = new BitSet[PRODUCERS];
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong replayed = new AtomicLong();
    private final Semaphore unread = new Semaphore(MAX_UNREAD);
    private final CountDownLatch producersDone = new CountDownLatch(PRODUCERS);

    @Test
    void directMemoryHeapAndDescriptorsStayFlatAndNothingAcknowledgedIsLost() throws Exception
    {
        final Path dir = BrokerTestSupport.newDirectory("broker-soak");
        System.out.println("broker soak: " + SECONDS + " s in " + dir + ", sample every " + SAMPLE_MILLIS + " ms");
        for (int p = 0; p < PRODUCERS; p++)
        {
            acked[p] = new BitSet();
            received[p] = new BitSet();
        }
        final List<Sample> samples = new ArrayList<>();
        try (KafkaBroker broker = KafkaBroker.start(BrokerTestSupport.config(dir)))
        {
            BrokerTestSupport.createTopic(broker, TOPIC, PARTITIONS,
                Map.of("retention.bytes", String.valueOf(8L << 20), "segment.bytes", String.valueOf(2 << 20)));
            final List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++)
            {
                final int id = p;
                threads.add(start("soak-producer-" + p, () -> produce(broker, id)));
            }
            threads.add(start("soak-tail", () -> followTail(broker)));
            threads.add(start("soak-replay", () -> replayFromStart(broker)));

            final long startNanos = System.nanoTime();
            final long endMillis = SECONDS * 1000;
            for (long next = SAMPLE_MILLIS; next <= endMillis && errors.isEmpty(); next += SAMPLE_MILLIS)
            {
                final long waitNanos = startNanos + TimeUnit.MILLISECONDS.toNanos(next) - System.nanoTime();
                if (waitNanos > 0)
                {
                    TimeUnit.NANOSECONDS.sleep(waitNanos); // pacing the sampler, not waiting for another thread
                }
                churnConnections(broker);
                samples.add(sample(next));
                System.out.println("broker soak: " + samples.get(samples.size() - 1) + " acked=" + ackedCount() +
                    " received=" + receivedCount() + " replayed=" + replayed.get());
            }
            stop.set(true);
            for (final Thread t : threads)
            {
                t.join(TimeUnit.SECONDS.toMillis(60));
                assertTrue(!t.isAlive(), t.getName() + " did not stop within 60 s");
            }
            assertEquals(0, broker.cacheStats().pinnedPages(), "pages still pinned by fetched batches");
        }
        final long lost = lostCount();
        System.out.println("FAULT-SUMMARY category=broker-soak cases=" + samples.size() + " acked_checked=" +
            ackedCount() + " lost=" + lost + " detected=" + duplicates.get());
        assertTrue(errors.isEmpty(), () -> "errors: " + errors);
        assertEquals(0, lost, "acknowledged records the group consumer never received");
        assertEquals(0, duplicates.get(), "records the group consumer received twice");
        assertTrue(replayed.get() > 0, "the replaying consumer read nothing");
        final List<String> violations = flatness(samples);
        assertTrue(violations.isEmpty(), () -> "broker soak: " + violations);
    }

    private Thread start(final String name, final ThrowingRunnable body)
    {
        final Thread t = new Thread(() ->
        {
            try
            {
                body.run();
            }
            catch (final Throwable e)
            {
                errors.add(e);
                stop.set(true);
            }
        }, name);
        t.start();
        return t;
    }

    private void produce(final KafkaBroker broker, final int id) throws Exception
    {
        final byte[] pad = new byte[VALUE_BYTES - 24];
        final long intervalNanos = TimeUnit.SECONDS.toNanos(1) / RECORDS_PER_SECOND_EACH;
        final long maxRecords = RECORDS_PER_SECOND_EACH * (SECONDS + 60);
        try (KafkaProducer<String, String> producer = BrokerTestSupport.producer(broker, Map.of()))
        {
            final long startNanos = System.nanoTime();
            for (int seq = 0; seq < maxRecords && !stop.get(); seq++)
            {
                final long due = startNanos + seq * intervalNanos;
                final long ahead = due - System.nanoTime();
                if (ahead > 1_000_000)
                {
                    TimeUnit.NANOSECONDS.sleep(ahead); // open-loop pacing of the load, not a wait for a thread
                }
                while (!unread.tryAcquire(100, TimeUnit.MILLISECONDS))
                {
                    if (stop.get())
                    {
                        return;
                    }
                }
                final int s = seq;
                final String value = id + ":" + s + ":" + new String(pad, StandardCharsets.ISO_8859_1);
                producer.send(new ProducerRecord<>(TOPIC, s % PARTITIONS, null, value), (md, e) ->
                {
                    if (e == null)
                    {
                        synchronized (acked[id])
                        {
                            acked[id].set(s);
                        }
                    }
                    else
                    {
                        errors.add(e);
                    }
                });
            }
            producer.flush();
        }
        finally
        {
            producersDone.countDown();
        }
    }

    private void followTail(final KafkaBroker broker)
    {
        try (KafkaConsumer<String, String> consumer = BrokerTestSupport.consumer(broker,
            Map.of(ConsumerConfig.GROUP_ID_CONFIG, "soak-tail")))
        {
            consumer.subscribe(List.of(TOPIC));
            long quietSince = -1;
            while (true)
            {
                final var records = consumer.poll(Duration.ofMillis(200));
                records.forEach(this::receive);
                consumer.commitSync();
                if (producersDone.getCount() > 0)
                {
                    continue;
                }
                // after the producers stopped: drain until nothing acknowledged is missing or 30 s without new records
                if (lostCount() == 0)
                {
                    return;
                }
                if (!records.isEmpty() || quietSince < 0)
                {
                    quietSince = System.nanoTime();
                }
                else if (System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(30))
                {
                    return;
                }
            }
        }
    }

    private void receive(final ConsumerRecord<String, String> record)
    {
        final String v = record.value();
        final int c1 = v.indexOf(':');
        final int c2 = v.indexOf(':', c1 + 1);
        final int id = Integer.parseInt(v, 0, c1, 10);
        final int seq = Integer.parseInt(v, c1 + 1, c2, 10);
        synchronized (received[id])
        {
            if (received[id].get(seq))
            {
                duplicates.incrementAndGet();
                return;
            }
            received[id].set(seq);
        }
        unread.release();
    }

    /** Reads every partition from its log start, a bounded number of records a round, round after round. */
    private void replayFromStart(final KafkaBroker broker)
    {
        final List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++)
        {
            partitions.add(new TopicPartition(TOPIC, p));
        }
        try (KafkaConsumer<String, String> consumer = BrokerTestSupport.consumer(broker, Map.of()))
        {
            consumer.assign(partitions);
            while (!stop.get())
            {
                consumer.seekToBeginning(partitions);
                int read = 0;
                for (int polls = 0; polls < 50 && read < 20_000 && !stop.get(); polls++)
                {
                    read += consumer.poll(Duration.ofMillis(100)).count();
                }
                replayed.addAndGet(read);
            }
        }
    }

    private void churnConnections(final KafkaBroker broker) throws Exception
    {
        try (Admin admin = BrokerTestSupport.admin(broker))
        {
            assertEquals(1, admin.describeCluster().nodes().get().size());
        }
        try (RawClient garbage = new RawClient(broker))
        {
            garbage.sendRaw(new byte[] {0, 0, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8});
        }
    }

    private static Sample sample(final long atMillis) throws IOException
    {
        System.gc();
        final long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        final long pooled = ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider m ?
            m.metric().usedDirectMemory() : -1;
        long jdk = 0;
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if ("direct".equals(pool.getName()))
            {
                jdk = pool.getMemoryUsed();
            }
        }
        final long fds;
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd")))
        {
            fds = s.count();
        }
        return new Sample(atMillis, pooled, PlatformDependent.usedDirectMemory(), jdk, heap, fds);
    }

    /** Compares the last third of the run with the first third after warm-up (the first fifth). */
    private static List<String> flatness(final List<Sample> samples)
    {
        final List<String> out = new ArrayList<>();
        if (samples.size() < 6)
        {
            out.add("too few samples (" + samples.size() + ") to judge");
            return out;
        }
        final List<Sample> steady = samples.subList(samples.size() / 5, samples.size());
        final int third = Math.max(1, steady.size() / 3);
        final List<Sample> early = steady.subList(0, third);
        final List<Sample> late = steady.subList(steady.size() - third, steady.size());
        check(out, "netty pooled direct", early, late, Sample::nettyPooled, DIRECT_SLACK);
        check(out, "netty direct counter", early, late, Sample::nettyCounter, DIRECT_SLACK);
        check(out, "jdk direct buffers", early, late, Sample::jdkDirect, DIRECT_SLACK);
        check(out, "heap after gc", early, late, Sample::heapAfterGc, HEAP_SLACK);
        check(out, "open descriptors", early, late, Sample::fds, FD_SLACK);
        return out;
    }

    private static void check(final List<String> out, final String what, final List<Sample> early,
        final List<Sample> late, final ToLongFunction<Sample> field, final long slack)
    {
        final long earlyMax = early.stream().mapToLong(field).max().orElse(0);
        final long lateMin = late.stream().mapToLong(field).min().orElse(0);
        // growth means the whole late third sits above everything early, by more than the slack
        if (earlyMax >= 0 && lateMin > earlyMax + slack)
        {
            out.add(what + " grew: early max " + earlyMax + ", late min " + lateMin + " (slack " + slack + ")");
        }
    }

    private long ackedCount()
    {
        return count(acked);
    }

    private long receivedCount()
    {
        return count(received);
    }

    private static long count(final BitSet[] sets)
    {
        long n = 0;
        for (final BitSet b : sets)
        {
            synchronized (b)
            {
                n += b.cardinality();
            }
        }
        return n;
    }

    private long lostCount()
    {
        long lost = 0;
        for (int p = 0; p < PRODUCERS; p++)
        {
            final BitSet missing;
            synchronized (acked[p])
            {
                missing = (BitSet)acked[p].clone();
            }
            synchronized (received[p])
            {
                missing.andNot(received[p]);
            }
            lost += missing.cardinality();
        }
        return lost;
    }

    @FunctionalInterface
    private interface ThrowingRunnable
    {
        void run() throws Exception;
    }
}
