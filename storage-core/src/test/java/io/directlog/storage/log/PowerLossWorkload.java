package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.Durability;
import io.directlog.storage.LogConfig;
import io.directlog.storage.RecoveryMode;
import io.directlog.storage.TestStores;
import io.directlog.storage.cache.EvictionPolicy;
import io.directlog.storage.cache.PageCache;
import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.io.sim.GatedBlockIo;
import io.directlog.storage.io.sim.SimulatedBlockIo;
import io.directlog.storage.page.PagePool;
import io.directlog.storage.page.ReadBufferPool;
import io.directlog.storage.writer.LogWriterAgent;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Runs a workload on one log over a {@link SimulatedBlockIo}, with the engine's own pieces (LogLoader, DefaultLog,
 * a started LogWriterAgent, a SegmentPreparer) and records what a crash oracle needs: the device's trace, every
 * acknowledgement with the number of I/O calls completed when it was given, and every payload by offset.
 * <p>
 * The run is deterministic: one operation at a time (each append waits for its acknowledgement, then a writer
 * barrier), the flush interval and sync interval are an hour (so only acknowledgements, rolls, closes and the
 * explicit SYNC operation write or sync), and the preparer's I/O is gated to run only between operations.
 * <p>
 * Not thread-safe; one workload at a time per instance.
 */
final class PowerLossWorkload implements AutoCloseable
{
    static final String NAME = "log";
    static final int SEGMENT = LogConfig.SEGMENT_SIZE_MIN;
    static final int MAX_PAYLOAD = RecordDescriptor.maxPayloadLength(SEGMENT);
    /**
     * The SYNC step applies retention: at least one segment's worth of records stays, so workloads that roll a few
     * times give files back, and the preparer makes recycled segments of them (stale records after their end).
     */
    static final long RETENTION_BYTES = SEGMENT;
    static final String PREPARER_THREAD = "directlog-segment-preparer";

    /** Workload operations. */
    enum Op
    {
        /** Append a record inside a block or across a few. */
        SMALL,
        /** Append a record of a third of a segment (many blocks; three fill a segment). */
        LARGE,
        /** Append a record as large as a segment holds: the append rolls (unless the segment is empty). */
        FILL,
        /** The syncer's tick: fdatasync of rolled and active segments. */
        SYNC,
        /** Close the log (the next append reopens it). */
        CLOSE,
        /** Close and reopen the log (a clean shutdown and recovery). */
        REOPEN
    }

    /**
     * One step.
     *
     * @param op         what.
     * @param durability for appends.
     * @param size       payload bytes for appends.
     */
    record Step(Op op, Durability durability, int size)
    {
        static Step of(final Op op, final Durability durability)
        {
            final int size = switch (op)
            {
                case SMALL -> 100;
                case LARGE -> SEGMENT / 3;
                case FILL -> MAX_PAYLOAD;
                default -> 0;
            };
            return new Step(op, durability, size);
        }

        @Override
        public String toString()
        {
            return op == Op.SMALL || op == Op.LARGE || op == Op.FILL ? op + "(" + size + "," + durability + ")" :
                op.toString();
        }
    }

    /**
     * An acknowledgement.
     *
     * @param offset     the record's offset.
     * @param durability what it was acknowledged as.
     * @param call       I/O calls completed when it was given: it is acknowledged before a crash after call k when
     *                   {@code call <= k}.
     */
    record Ack(long offset, Durability durability, int call)
    {
    }

    /**
     * A completed workload.
     *
     * @param description  its steps, for messages.
     * @param io           the device (its trace).
     * @param acks         acknowledgements in offset order.
     * @param payloads     payloads by offset.
     * @param firstOpCall  calls made by the log's creation, before the first step.
     * @param retentions   one per SYNC step (which applies retention): {calls completed before it, the log's start
     *                     offset after it}.
     */
    record Run(String description, SimulatedBlockIo io, List<Ack> acks, List<byte[]> payloads, int firstOpCall,
        List<long[]> retentions)
    {
    }

    private final Path dir;
    private final PagePool pool;
    private final PageCache cache;
    private final ReadBufferPool readBuffers;
    private final LogWriterAgent writer;

    PowerLossWorkload(final Path base)
    {
        this.dir = base.resolve(NAME);
        this.pool = new PagePool(256L << 20, 4096);
        this.cache = new PageCache(pool, EvictionPolicy.fromSystemProperties());
        this.readBuffers = new ReadBufferPool(256 << 10, 4096, 32);
        this.writer = new LogWriterAgent("directlog-powerloss-writer", 4 << 20);
        writer.start();
    }

    Path dir()
    {
        return dir;
    }

    static LogConfig config(final Durability durability)
    {
        // full-size segments: the workload lets the preparer run only between steps (settle), so a roll must never
        // need a file prepared on demand at that roll, which the segment-size ladder's small logs do
        return LogConfig.builder().segmentSize(SEGMENT).initialSegmentSize(SEGMENT).durability(durability)
            .flushInterval(Duration.ofHours(1))
            .syncInterval(Duration.ofHours(1)).preparedSegments(1).retentionBytes(RETENTION_BYTES).build();
    }

    LogContext context(final BlockIo io, final SegmentPreparer preparer, final RecoveryMode mode)
    {
        return context(io, preparer, mode, writer);
    }

    LogContext context(final BlockIo io, final SegmentPreparer preparer, final RecoveryMode mode,
        final LogWriterAgent logWriter)
    {
        return new LogContext(io, cache, readBuffers, logWriter, preparer, Duration.ofSeconds(10), false, mode,
            new ReadAhead(0));
    }

    /**
     * LogLoader (log.meta), Checkpoint (checkpoint) and IndexFile (index files) decide whether a file exists with
     * {@code Files.exists} on the real filesystem, not through the BlockIo (an engine seam gap, reported): mirror
     * the simulated directory's names there as empty files, so the engine sees the device's namespace.
     *
     * @param io the device the next open reads.
     * @throws IOException when the real directory cannot be changed.
     */
    void mirrorNames(final SimulatedBlockIo io) throws IOException
    {
        Files.createDirectories(dir);
        final java.util.Set<Path> wanted = new java.util.HashSet<>(io.filesIn(dir));
        try (java.util.stream.Stream<Path> existing = Files.list(dir))
        {
            for (final Path p : (Iterable<Path>)existing::iterator)
            {
                if (!wanted.remove(p))
                {
                    Files.delete(p);
                }
            }
        }
        for (final Path p : wanted)
        {
            Files.createFile(p);
        }
    }

    static byte[] payload(final long seed, final long offset, final int size)
    {
        return TestStores.payload(seed, offset, size);
    }

    Run run(final List<Step> steps, final Durability mode, final long seed) throws Exception
    {
        final SimulatedBlockIo io = new SimulatedBlockIo();
        final GatedBlockIo gated = new GatedBlockIo(io, PREPARER_THREAD);
        final SegmentPreparer preparer = new SegmentPreparer(gated);
        final LogContext context = context(io, preparer, RecoveryMode.TOLERATE_TORN_TAIL);
        final List<Ack> acks = new ArrayList<>();
        final List<byte[]> payloads = new ArrayList<>();
        final List<long[]> retentions = new ArrayList<>();
        DefaultLog log = null;
        long syncClock = System.nanoTime();
        try
        {
            log = open(io, gated, context, mode);
            final int firstOpCall = io.callCount();
            for (final Step step : steps)
            {
                switch (step.op())
                {
                    case SMALL, LARGE, FILL ->
                    {
                        if (log == null)
                        {
                            log = open(io, gated, context, mode);
                        }
                        append(log, io, gated, step, seed, acks, payloads);
                    }
                    case SYNC ->
                    {
                        if (log != null)
                        {
                            final int before = io.callCount();
                            syncClock += Duration.ofHours(2).toNanos(); // past the hour-long sync interval
                            log.syncer().onSyncerTick(syncClock);
                            retentions.add(new long[] {before, log.startOffset()});
                        }
                    }
                    case CLOSE ->
                    {
                        if (log != null)
                        {
                            log.close();
                            log = null;
                        }
                    }
                    case REOPEN ->
                    {
                        if (log != null)
                        {
                            log.close();
                        }
                        log = open(io, gated, context, mode);
                    }
                    default -> throw new IllegalStateException(step.toString());
                }
            }
            if (log != null)
            {
                log.close();
                log = null;
            }
            return new Run(steps + " mode=" + mode, io, acks, payloads, firstOpCall, retentions);
        }
        finally
        {
            if (log != null)
            {
                log.close();
            }
            gated.open(true);
            preparer.close();
        }
    }

    private DefaultLog open(final SimulatedBlockIo io, final GatedBlockIo gated, final LogContext context,
        final Durability mode) throws Exception
    {
        mirrorNames(io);
        final DefaultLog log = LogOpening.open(NAME, dir, context, config(mode));
        settle(gated, log);
        return log;
    }

    private void append(final DefaultLog log, final SimulatedBlockIo io, final GatedBlockIo gated, final Step step,
        final long seed, final List<Ack> acks, final List<byte[]> payloads) throws Exception
    {
        final byte[] payload = payload(seed, payloads.size(), step.size());
        final CompletableFuture<long[]> done = new CompletableFuture<>();
        log.append(new UnsafeBuffer(payload), 0, payload.length, step.durability(), (offset, error) ->
        {
            if (error != null)
            {
                done.completeExceptionally(error);
            }
            else
            {
                done.complete(new long[] {offset, io.callCount()});
            }
        });
        final long[] ack = done.get(30, TimeUnit.SECONDS);
        if (ack[0] != payloads.size())
        {
            throw new AssertionError("append acknowledged at offset " + ack[0] + ", expected " + payloads.size());
        }
        payloads.add(payload);
        acks.add(new Ack(ack[0], step.durability(), (int)ack[1]));
        barrier();
        settle(gated, log);
    }

    /** Waits until the writer has finished everything queued so far. */
    private void barrier() throws Exception
    {
        final CountDownLatch done = new CountDownLatch(1);
        if (!writer.offerCommand(0, done::countDown, Duration.ofSeconds(10)) || !done.await(30, TimeUnit.SECONDS))
        {
            throw new AssertionError("the writer did not run a barrier within 30 s");
        }
    }

    /** Lets the preparer top the log's prepared segments up, then holds its I/O again. */
    private static void settle(final GatedBlockIo gated, final DefaultLog log)
    {
        gated.open(true);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (log.spares().preparedCount() < log.spares().preparedTarget())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("the preparer did not prepare a segment within 30 s");
            }
            Thread.yield();
        }
        gated.open(false);
    }

    @Override
    public void close() throws IOException
    {
        try
        {
            writer.stop(Duration.ofSeconds(10));
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        readBuffers.close();
        pool.close();
    }
}
