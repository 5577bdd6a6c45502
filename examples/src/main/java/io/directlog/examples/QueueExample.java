package io.directlog.examples;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogReader;
import io.directlog.storage.LogStore;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.StoreConfig;

/**
 * A queue's use of DirectLog in one file, meant to be copied: open a store, append with each durability, tail
 * a log with a reader that blocks for new data, keep a consumer's position durably, reopen, close.
 * <p>
 * Run it with {@code java -jar examples/target/directlog-examples.jar [DIR]}: the jar's manifest carries the
 * JVM options DirectLog's native layer wants ({@code Add-Opens: java.base/jdk.internal.misc},
 * {@code Enable-Native-Access: ALL-UNNAMED}). With {@code java -cp} and no option it works too, on the JDK's own
 * O_DIRECT I/O; pass {@code --add-opens java.base/jdk.internal.misc=ALL-UNNAMED --enable-native-access=ALL-UNNAMED}
 * for the native layer (fallocate, one device flush shared by the logs of a writer, AIO, device facts).
 * <p>
 * It checks what it reads and exits with status 1 if anything differs, so the build runs it as a test.
 */
public final class QueueExample
{
    /**
     * DirectLog logs through {@link System.Logger} (java.util.logging unless the application bridges it); it
     * says which I/O it chose at INFO when a store opens. A library user who wants a quiet stderr raises the
     * level. The reference is kept: java.util.logging holds its loggers weakly, and a collected logger forgets
     * its level.
     */
    private static final Logger DIRECTLOG_LOGGER = Logger.getLogger("io.directlog");

    private static final String TOPIC = "orders";
    /** One log per consumer group holds its committed positions: the last record is the current one. */
    private static final String POSITIONS = "orders.positions.billing";
    private static final int MAX_BATCH_BYTES = 64 * 1024;

    private QueueExample()
    {
    }

    /**
     * @param args optional: the store's directory (default: a new temporary directory, deleted at the end).
     * @throws Exception when something fails; the example then exits with status 1.
     */
    public static void main(final String[] args) throws Exception
    {
        DIRECTLOG_LOGGER.setLevel(Level.WARNING);
        final boolean temporary = args.length == 0;
        final Path dir = temporary ? Files.createTempDirectory("directlog-example") : Path.of(args[0]);
        boolean ok = false;
        try
        {
            run(dir);
            ok = true;
            System.out.println("queue example: ok");
        }
        catch (final Exception | AssertionError ex)
        {
            System.out.println("queue example: FAILED: " + ex);
            ex.printStackTrace(System.out);
        }
        finally
        {
            if (temporary)
            {
                deleteRecursively(dir);
            }
        }
        if (!ok)
        {
            System.exit(1);
        }
    }

    static void run(final Path dir) throws Exception
    {
        final StoreConfig storeConfig = StoreConfig.builder(dir)
            .memoryBudget(32L << 20)   // off-heap cache pages shared by every log of the store
            .build();
        final LogConfig topicConfig = LogConfig.builder()
            .segmentSize(4 << 20)      // fixed when the log is created; the log's write page is this long
            .durability(Durability.DSYNC)
            .build();

        final List<String> sent = new ArrayList<>();
        final ExecutorService consumerThread = Executors.newSingleThreadExecutor();
        try (LogStore store = LogStore.open(storeConfig))
        {
            // which I/O the engine chose: the native layer, or the JDK's own when the JVM got none of its options
            System.out.println("queue example: io " + store.deviceInfo().io());
            final Log topic = store.log(TOPIC, topicConfig);
            // small records, few of them: the smallest segment (a log's write page is one segment long)
            final Log positions = store.log(POSITIONS, LogConfig.builder().segmentSize(LogConfig.SEGMENT_SIZE_MIN).build());
            check(lastCommittedPosition(positions) == -1, "a new consumer group has no position");

            // 1. Appends, one per durability. The future completes when the record is as durable as asked:
            //    MEMORY when the writer has copied it (readable, lost in a crash), DIRECT when an O_DIRECT
            //    write returned (survives a process crash; the device's cache may still hold it), DSYNC when
            //    the write reached stable storage (survives power loss).
            for (final Durability durability : Durability.values())
            {
                final String message = "order placed with " + durability;
                final long offset = topic.append(utf8(message), durability).get(5, TimeUnit.SECONDS);
                check(offset == sent.size(), "offsets are dense from 0: " + offset);
                sent.add(message);
            }

            // 2. A consumer tailing the topic: poll(maxBytes, timeout) blocks until a record is readable.
            final Future<List<String>> consumed = consumerThread.submit(() -> consume(topic, 0, 6));
            for (int i = 0; i < 3; i++)
            {
                final String message = "order " + i + " (appended while the consumer waits)";
                // the appends need not be waited for one by one; join the last future
                final CompletableFuture<Long> ack = topic.append(utf8(message));
                sent.add(message);
                if (i == 2)
                {
                    ack.get(5, TimeUnit.SECONDS);
                }
            }
            final List<String> seen = consumed.get(10, TimeUnit.SECONDS);
            check(seen.equals(sent), "the consumer saw every record in order: " + seen);

            // 3. The consumer commits how far it got: the next offset to read, durably.
            commitPosition(positions, 4);
        }

        // 4. Reopen: every acknowledged record is there (this was a clean close), and the consumer resumes
        //    where it committed, without replaying what it had processed.
        try (LogStore store = LogStore.open(storeConfig))
        {
            final Log topic = store.log(TOPIC);
            check(topic.endOffset() == sent.size(), "records after reopen: " + topic.endOffset());
            final long resumeAt = lastCommittedPosition(store.log(POSITIONS));
            check(resumeAt == 4, "committed position after reopen: " + resumeAt);
            final List<String> rest = consumerThread.submit(() -> consume(topic, resumeAt, sent.size() - 4))
                .get(10, TimeUnit.SECONDS);
            check(rest.equals(sent.subList(4, sent.size())), "resumed at the committed position: " + rest);
        }
        finally
        {
            consumerThread.shutdownNow();
        }
    }

    /** Reads {@code count} records from {@code from}, blocking for each one that is not there yet. */
    private static List<String> consume(final Log log, final long from, final int count) throws InterruptedException
    {
        final List<String> seen = new ArrayList<>();
        try (LogReader reader = log.reader(from))
        {
            while (seen.size() < count)
            {
                // the batch's payload views point into the engine's cache pages: copy what outlives the batch,
                // and close the batch before the next poll
                try (RecordBatch batch = reader.poll(MAX_BATCH_BYTES, Duration.ofSeconds(5)))
                {
                    check(!batch.isEmpty(), "a record within 5 s");
                    for (final io.directlog.storage.Record record : batch)
                    {
                        seen.add(new String(record.payloadBytes(), StandardCharsets.UTF_8));
                    }
                }
            }
        }
        return seen;
    }

    private static void commitPosition(final Log positions, final long nextOffset) throws Exception
    {
        final byte[] bytes = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(nextOffset).array();
        positions.append(bytes, Durability.DSYNC).get(5, TimeUnit.SECONDS);
    }

    /** @return the last committed position, or -1 when the group never committed. */
    private static long lastCommittedPosition(final Log positions)
    {
        final long end = positions.endOffset();
        if (end == positions.startOffset())
        {
            return -1;
        }
        try (RecordBatch batch = positions.read(end - 1, Long.BYTES + 64))
        {
            final byte[] bytes = batch.iterator().next().payloadBytes();
            return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong();
        }
    }

    private static byte[] utf8(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void check(final boolean condition, final String what)
    {
        if (!condition)
        {
            throw new AssertionError("expected: " + what);
        }
    }

    private static void deleteRecursively(final Path dir) throws IOException
    {
        try (var paths = Files.walk(dir))
        {
            for (final Path p : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList())
            {
                Files.deleteIfExists(p);
            }
        }
    }
}
