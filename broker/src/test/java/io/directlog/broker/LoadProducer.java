package io.directlog.broker;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * An idempotent acks=all kafka-clients producer on a thread of its own, writing unique values round-robin over a
 * topic's partitions while faults happen; each acknowledgement goes to the {@link AckLedger}. At most
 * {@value #IN_FLIGHT} records are unacknowledged at a time, so the load follows what the cluster can commit.
 * Bounded: it stops after {@value #MAX_RECORDS} records or when closed.
 * <p>
 * Thread-safe.
 */
final class LoadProducer implements AutoCloseable
{
    private static final int IN_FLIGHT = 64;
    private static final int MAX_RECORDS = 2_000_000;
    /** Metadata unobtainable this long: start again from bootstrap.servers (see {@link #producer}). */
    private static final long REBOOTSTRAP_AFTER_MS = 5_000;

    private final KafkaProducer<String, String> producer;
    private final Semaphore inFlight = new Semaphore(IN_FLIGHT);
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final Thread thread;
    private volatile boolean stopping;

    private LoadProducer(final String bootstrap, final String topic, final int partitions, final String prefix,
        final AckLedger ledger)
    {
        producer = producer(bootstrap);
        thread = new Thread(() -> run(topic, partitions, prefix, ledger), "load-" + prefix);
        thread.setDaemon(true);
    }

    /** @return a started producer writing values {@code prefix + n}. */
    static LoadProducer start(final String bootstrap, final String topic, final int partitions, final String prefix,
        final AckLedger ledger)
    {
        final LoadProducer p = new LoadProducer(bootstrap, topic, partitions, prefix, ledger);
        p.thread.start();
        return p;
    }

    /** The client settings of the suite: idempotent, acks=all, retrying across a failover for up to two minutes. */
    static KafkaProducer<String, String> producer(final String bootstrap)
    {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 60_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 2);
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 500);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        // A SIGSTOPped (hung, not dead) leader: its kernel still completes TCP connects, so the client's connection
        // to it is always "in progress", and kafka-clients sends its Metadata request to a node with a connection in
        // progress before one it is not connected to. A producer whose partitions were all led by the hung node has
        // no connection to any other, so every refresh waits for the hung node's request timeout, again and again:
        // 60 s to over 2 minutes without a send to the new leader (issue 22's paused-leader runs), ended only by luck
        // or by the 5-minute rebootstrap default. Rebootstrapping after 5 s without metadata reaches the live nodes.
        p.put(CommonClientConfigs.METADATA_RECOVERY_STRATEGY_CONFIG, "rebootstrap");
        p.put(CommonClientConfigs.METADATA_RECOVERY_REBOOTSTRAP_TRIGGER_MS_CONFIG, REBOOTSTRAP_AFTER_MS);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private void run(final String topic, final int partitions, final String prefix, final AckLedger ledger)
    {
        try
        {
            for (int n = 0; n < MAX_RECORDS && !stopping; n++)
            {
                if (!inFlight.tryAcquire(1, TimeUnit.SECONDS))
                {
                    n--; // no room yet (a failover): ask again, or stop
                    continue;
                }
                final String value = prefix + n;
                producer.send(new ProducerRecord<>(topic, n % partitions, null, value), (m, error) ->
                {
                    if (error == null)
                    {
                        ledger.acked(value, m.partition(), m.offset());
                        acked.incrementAndGet();
                    }
                    else
                    {
                        failed.incrementAndGet(); // outcome unknown: it may be stored, never twice
                    }
                    inFlight.release();
                });
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    long acked()
    {
        return acked.get();
    }

    long failed()
    {
        return failed.get();
    }

    /**
     * Polls until at least {@code target} records are acknowledged.
     *
     * @throws AssertionError after the timeout.
     */
    void awaitAcked(final long target, final Duration timeout) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (acked.get() < target)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("the producer got " + acked.get() + " acknowledgements of " + target +
                    " within " + timeout + " (" + failed.get() + " sends failed)");
            }
            Thread.sleep(10); // acknowledgements arrive on the client's I/O thread; nothing to wait on here
        }
    }

    /** Stops sending and waits (two minutes at most) for the outcome of every record sent. */
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
        producer.close(Duration.ofMinutes(2));
    }
}
