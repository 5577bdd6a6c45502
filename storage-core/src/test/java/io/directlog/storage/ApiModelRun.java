package io.directlog.storage;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import io.directlog.storage.format.RecordDescriptor;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The model-based random API test (after RocksDB's db_stress expected state): one thread drives a log through
 * every append variant (mostly MEMORY, a little DIRECT and DSYNC), reads at random offsets in and out of range,
 * {@code offsetForTimestamp}, a sequential reader, {@code awaitAppend}, invalid inputs, and close/reopen of the
 * store, while a second thread closes the store under it now and then and a third interrupts it. An in-memory
 * model (the base offset, record count and seeded payload of every append) predicts every result; any
 * difference is a divergence. Acknowledged appends must survive each close, appends refused by a close must
 * take no offset. At the end: hs_err files in the working directory and /proc/self/fd are compared with the
 * start.
 * <p>
 * Not thread-safe; the test thread drives it.
 */
final class ApiModelRun
{
    private static final int SEGMENT = 1 << 20;
    private static final int REOPEN_EVERY = 40_000;

    record Totals(long operations, long ackedChecked, long lost, long injected, long detected, long divergences,
        long crashFiles, long leakedDescriptors)
    {
    }

    /** A pending append; completed on the writer thread. */
    private static final class Pending
    {
        final int index;
        final CompletableFuture<Long> future;
        volatile boolean done;
        volatile long offset;
        volatile Throwable error;

        Pending(final int index, final CompletableFuture<Long> future)
        {
            this.index = index;
            this.future = future;
        }

        boolean isDone()
        {
            return future != null ? future.isDone() : done;
        }

        long offset()
        {
            return future != null ? future.getNow(-1L) : offset;
        }

        Throwable error()
        {
            if (future == null)
            {
                return error;
            }
            if (!future.isCompletedExceptionally())
            {
                return null;
            }
            try
            {
                future.join();
                return null;
            }
            catch (final java.util.concurrent.CompletionException e)
            {
                return e.getCause();
            }
        }
    }

    private final long seed;
    private final long targetOps;
    private final SplittableRandom random;
    private Path dir;
    private LogStore store;
    private Log log;
    private LogReader reader;
    private long readerExpected;

    // the model: append i took [base[i], base[i] + count[i]) with size[i] bytes of payload(i)
    private long[] base = new long[1 << 16];
    private int[] count = new int[1 << 16];
    private int[] size = new int[1 << 16];
    private int appends;
    private int ackedAppends; // appends[0, ackedAppends) are acknowledged
    private long nextOffset;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final ByteBuffer direct = ByteBuffer.allocateDirect(400_000);
    private final byte[] scratch = new byte[400_000];

    private long ops;
    private long ackedChecked;
    private long lost;
    private long injected;
    private long detected;
    private long divergences;
    private long closeRaces;
    private long interrupts;
    private long interruptedWaits;
    private long reopens;

    private volatile Thread driver;
    private volatile long interruptAtNanos = Long.MAX_VALUE;
    private volatile boolean running = true;
    private final Object interruptLock = new Object();
    private boolean interruptsAllowed; // guarded by interruptLock
    private boolean racing;

    ApiModelRun(final long seed, final long targetOps)
    {
        this.seed = seed;
        this.targetOps = targetOps;
        this.random = new SplittableRandom(seed);
    }

    Totals run() throws Exception
    {
        dir = TestDirs.create("api-model");
        final Path cwd = Path.of("").toAbsolutePath();
        final long crashBefore = crashFiles(cwd);
        // warm up once so that lazily opened descriptors (jars, native libraries) are counted before
        try (LogStore warm = LogStore.open(config(TestDirs.create("api-model-warm"))))
        {
            warm.log("w").append(new byte[1]).join();
        }
        final long fdBefore = openDescriptors();
        final java.util.Map<String, String> targetsBefore = descriptorTargets();
        driver = Thread.currentThread();
        final Thread interrupter = new Thread(this::interruptLoop, "api-model-interrupter");
        interrupter.setDaemon(true);
        interrupter.start();
        final long start = System.nanoTime();
        try
        {
            open();
            while (ops < targetOps)
            {
                step();
                ops++;
            }
            closeAndVerify();
        }
        catch (final AssertionError e)
        {
            divergences++;
            throw new AssertionError("model divergence after " + ops + " operations (seed " + seed + ", rerun with " +
                "-D" + TestSeed.SEED_PROP_NAME + "=" + seed + "): " + e.getMessage(), e);
        }
        finally
        {
            running = false;
            interrupter.interrupt();
            interrupter.join(10_000);
            Thread.interrupted();
            if (store != null)
            {
                store.close();
            }
        }
        final long fdAfter = openDescriptors();
        if (fdAfter > fdBefore)
        {
            final java.util.Map<String, String> now = descriptorTargets();
            now.entrySet().removeIf(e -> e.getValue().equals(targetsBefore.get(e.getKey())));
            System.out.println("api model: descriptors opened during the run and still open: " + now);
        }
        final long crashAfter = crashFiles(cwd);
        System.out.printf("api model: %d operations in %.1f s (%d appends, %d reopens, %d close races, %d interrupts, " +
            "%d interrupted waits); fds %d -> %d; hs_err %d -> %d%n", ops, (System.nanoTime() - start) / 1e9, appends,
            reopens, closeRaces, interrupts, interruptedWaits, fdBefore, fdAfter, crashBefore, crashAfter);
        return new Totals(ops, ackedChecked, lost, injected, detected, divergences, crashAfter - crashBefore,
            Math.max(0, fdAfter - fdBefore));
    }

    private static StoreConfig config(final Path dir)
    {
        return TestStores.store(dir, TestStores.log(Durability.MEMORY).build()).memoryBudget(48L << 20)
            .appendTimeout(Duration.ofSeconds(10)).build();
    }

    /** Opening and closing on an interrupted thread are cases of their own (ApiFaultTest a11): none here. */
    private void allowInterrupts(final boolean allowed)
    {
        synchronized (interruptLock)
        {
            interruptsAllowed = allowed;
            interruptAtNanos = Long.MAX_VALUE;
            Thread.interrupted();
        }
    }

    private void open()
    {
        allowInterrupts(false);
        store = LogStore.open(config(dir));
        log = store.log("m");
        check(log.endOffset() == nextOffset, "reopened log ends at " + log.endOffset() + ", model at " + nextOffset);
        readerExpected = nextOffset == 0 ? 0 : random.nextLong(nextOffset);
        reader = log.reader(readerExpected);
        allowInterrupts(true);
    }

    // ---------------------------------------------------------------- one random operation

    private void step()
    {
        if (ops > 0 && ops % REOPEN_EVERY == 0)
        {
            if (random.nextBoolean())
            {
                closeRace();
            }
            else
            {
                closeAndVerify();
            }
            open();
            return;
        }
        if (random.nextInt(5_000) == 0)
        {
            interruptAtNanos = System.nanoTime() + random.nextLong(200_000);
            interrupts++;
        }
        if ((ops & 1023) == 0 && random.nextInt(4) == 0)
        {
            Thread.interrupted(); // the caller handled its interrupt
        }
        final int r = random.nextInt(1000);
        if (r < 530)
        {
            append(r % 6, Durability.MEMORY);
        }
        else if (r < 532)
        {
            append(r % 6, Durability.DIRECT);
        }
        else if (r < 533)
        {
            append(random.nextInt(6), Durability.DSYNC);
        }
        else if (r < 800)
        {
            read();
        }
        else if (r < 830)
        {
            offsetForTimestamp();
        }
        else if (r < 930)
        {
            poll();
        }
        else if (r < 940)
        {
            await();
        }
        else if (r < 960)
        {
            drain(false);
        }
        else
        {
            invalidInput();
        }
    }

    private int payloadSize()
    {
        final int p = random.nextInt(10_000);
        if (p == 0)
        {
            return 100_000 + random.nextInt(250_000); // larger than the ring's inline limit
        }
        return p < 300 ? 0 : random.nextInt(p < 9000 ? 200 : 4000);
    }

    private static byte payloadByte(final long seed, final int index, final int j)
    {
        final long h = (seed + index) * 0x9E3779B97F4A7C15L;
        return (byte)((h >>> ((j & 7) << 3)) + j);
    }

    private void append(final int variant, final Durability durability)
    {
        final int length = payloadSize();
        final int records = variant == 2 || variant == 5 && random.nextBoolean() ? 1 + random.nextInt(5) : 1;
        final int index = appends;
        for (int j = 0; j < length; j++)
        {
            scratch[j] = payloadByte(seed, index, j);
        }
        grow();
        base[index] = nextOffset;
        count[index] = records;
        size[index] = length;
        final Pending p;
        switch (variant)
        {
            case 0 -> p = new Pending(index, durability == Durability.MEMORY ?
                log.append(Arrays.copyOf(scratch, length)) : log.append(Arrays.copyOf(scratch, length), durability));
            case 1 -> p = new Pending(index, log.append(Arrays.copyOf(scratch, length), durability));
            case 2 -> p = new Pending(index, log.append(Arrays.copyOf(scratch, length), records, durability));
            case 3 ->
            {
                final int at = random.nextInt(16);
                final ByteBuffer heap = ByteBuffer.allocate(length + at + 8);
                heap.position(at);
                heap.put(scratch, 0, length).flip().position(at);
                p = new Pending(index, log.append(heap, durability));
                check(heap.position() == at, "append moved the buffer's position");
            }
            case 4 ->
            {
                direct.clear();
                direct.put(scratch, 0, length).flip();
                p = new Pending(index, log.append(direct, durability));
            }
            default ->
            {
                final Pending holder = new Pending(index, null);
                final int at = random.nextInt(32);
                final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length + at]);
                buffer.putBytes(at, scratch, 0, length);
                log.append(buffer, at, length, records, durability, (offset, error) -> {
                    holder.offset = offset;
                    holder.error = error;
                    holder.done = true;
                });
                p = holder;
            }
        }
        appends++;
        nextOffset += records;
        pending.add(p);
        if (pending.size() > 20_000 && !racing)
        {
            drain(true);
        }
    }

    private void grow()
    {
        if (appends == base.length)
        {
            base = Arrays.copyOf(base, appends * 2);
            count = Arrays.copyOf(count, appends * 2);
            size = Arrays.copyOf(size, appends * 2);
        }
    }

    /** Takes completed appends off the head in order; with {@code all}, waits for every one. */
    private void drain(final boolean all)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!pending.isEmpty())
        {
            final Pending p = pending.peek();
            if (!p.isDone())
            {
                if (!all)
                {
                    return;
                }
                check(System.nanoTime() < deadline, "append " + p.index + " not completed after 20 s");
                Thread.onSpinWait();
                continue;
            }
            pending.poll();
            final Throwable error = p.error();
            check(error == null, "append " + p.index + " failed: " + error);
            check(p.offset() == base[p.index], "append " + p.index + " got offset " + p.offset() + ", model " +
                base[p.index]);
            check(p.index == ackedAppends, "acknowledgement out of order");
            ackedAppends++;
        }
    }

    /** Finds the append holding {@code offset} in the model. */
    private int appendAt(final long offset)
    {
        int i = Arrays.binarySearch(base, 0, appends, offset);
        if (i < 0)
        {
            i = -i - 2;
        }
        return i;
    }

    private void checkRecord(final Record r, final int index)
    {
        check(r.offset() == base[index], "record at " + r.offset() + ", model " + base[index]);
        check(r.recordCount() == count[index], "record count " + r.recordCount() + " at " + r.offset() + ", model " +
            count[index]);
        check(r.payloadLength() == size[index], "payload of " + r.payloadLength() + " bytes at " + r.offset() +
            ", model " + size[index]);
        final DirectBuffer payload = r.payload();
        for (int j = 0; j < size[index]; j++)
        {
            if (payload.getByte(j) != payloadByte(seed, index, j))
            {
                check(false, "payload byte " + j + " of offset " + r.offset() + " differs");
            }
        }
        ackedChecked++;
    }

    private void checkBatch(final RecordBatch batch, final long offset)
    {
        int index = appendAt(offset);
        for (final Record r : batch)
        {
            check(index < appends, "record at " + r.offset() + " beyond every append");
            checkRecord(r, index);
            index++;
        }
        check(batch.nextOffset() == (index < appends ? base[index] : nextOffset), "batch nextOffset " +
            batch.nextOffset());
    }

    private void read()
    {
        final long visible = log.visibleEndOffset();
        final int kind = random.nextInt(100);
        final int maxBytes = 1 + random.nextInt(random.nextInt(10) == 0 ? 64 << 10 : 512);
        if (kind < 85 && visible > 0)
        {
            final long offset = random.nextLong(visible);
            try (RecordBatch batch = log.read(offset, maxBytes))
            {
                check(!batch.isEmpty(), "visible offset " + offset + " read empty (visible end " + visible + ")");
                checkBatch(batch, offset);
            }
            return;
        }
        if (kind < 90)
        {
            try (RecordBatch batch = log.read(visible, maxBytes))
            {
                if (!batch.isEmpty())
                {
                    checkBatch(batch, visible); // appended meanwhile
                }
            }
        }
        else if (kind < 96)
        {
            final long offset = nextOffset + 1 + random.nextLong(1_000_000);
            try
            {
                log.read(offset, maxBytes).close();
                check(false, "read past the end at " + offset + " succeeded");
            }
            catch (final OffsetOutOfRangeException e)
            {
                check(e.offset() == offset && e.startOffset() == 0 && e.endOffset() <= nextOffset, e.getMessage());
            }
        }
        else
        {
            final long offset = random.nextBoolean() ? -1 - random.nextLong(1_000_000) : Long.MIN_VALUE;
            try
            {
                log.read(offset, maxBytes).close();
                check(false, "read at " + offset + " succeeded");
            }
            catch (final IllegalArgumentException e)
            {
                // expected
            }
        }
        injected++; // an offset at or past the end, or negative: its documented outcome
        detected++;
    }

    private void offsetForTimestamp()
    {
        final long visible = log.visibleEndOffset();
        if (visible == 0)
        {
            return;
        }
        final long ts;
        final long at;
        try (RecordBatch batch = log.read(random.nextLong(visible), 1))
        {
            final Record r = batch.iterator().next();
            ts = r.timestamp();
            at = r.offset();
        }
        final long found = log.offsetForTimestamp(ts);
        check(found <= at, "offsetForTimestamp(" + ts + ") = " + found + " after a record at " + at + " with it");
        try (RecordBatch batch = log.read(found, 1))
        {
            final Record r = batch.iterator().next();
            check(r.timestamp() == ts, "offsetForTimestamp(" + ts + ") found timestamp " + r.timestamp());
            if (r.offset() > 0)
            {
                try (RecordBatch before = log.read(r.offset() - 1, 1))
                {
                    check(before.iterator().next().timestamp() < ts, "an earlier record has timestamp " + ts);
                }
            }
        }
        check(log.offsetForTimestamp(Long.MAX_VALUE) >= visible, "offsetForTimestamp(max) below the visible end");
        check(log.offsetForTimestamp(Long.MIN_VALUE) == 0, "offsetForTimestamp(min) is not the start");
    }

    private void poll()
    {
        if (random.nextInt(50) == 0)
        {
            final long end = log.endOffset(); // appends still queued have no offset yet
            readerExpected = end == 0 ? 0 : random.nextLong(end + 1);
            reader.seek(readerExpected);
        }
        final long visible = log.visibleEndOffset();
        try (RecordBatch batch = reader.poll(1 + random.nextInt(random.nextInt(20) == 0 ? 64 << 10 : 4096)))
        {
            if (batch.isEmpty())
            {
                check(readerExpected >= visible, "reader at " + readerExpected + " got nothing below " + visible);
                return;
            }
            checkBatch(batch, readerExpected);
            readerExpected = batch.nextOffset();
            check(reader.position() == readerExpected, "reader position " + reader.position());
        }
    }

    private void await()
    {
        try
        {
            final long visible = log.visibleEndOffset();
            if (visible > 0)
            {
                check(log.awaitAppend(visible - 1, Duration.ZERO), "awaitAppend of a visible offset");
            }
            check(!log.awaitAppend(nextOffset + 10, Duration.ofNanos(random.nextInt(200_000))),
                "awaitAppend past every append");
            if (random.nextInt(4) == 0)
            {
                try (RecordBatch batch = reader.poll(4096, Duration.ofNanos(random.nextInt(100_000))))
                {
                    if (!batch.isEmpty())
                    {
                        checkBatch(batch, readerExpected);
                        readerExpected = batch.nextOffset();
                    }
                }
            }
        }
        catch (final InterruptedException e)
        {
            interruptedWaits++; // the caller was interrupted: the documented outcome
        }
    }

    private void invalidInput()
    {
        final int max = RecordDescriptor.maxPayloadLength(SEGMENT);
        final long end = log.endOffset();
        switch (random.nextInt(6))
        {
            case 0 -> expect(RecordTooLargeException.class, () -> log.append(new byte[max + 1 + random.nextInt(100)]));
            case 1 -> expect(NullPointerException.class, () -> log.append((byte[])null, Durability.MEMORY));
            case 2 -> expect(IllegalArgumentException.class, () -> log.append(new byte[3], 0, Durability.MEMORY));
            case 3 -> expect(IndexOutOfBoundsException.class, () -> log.append(new UnsafeBuffer(new byte[8]), 4, 5,
                Durability.MEMORY, (o, e) -> check(false, "called back")));
            case 4 -> expect(IllegalArgumentException.class, () -> log.read(0, 0));
            default -> expect(NullPointerException.class, () -> log.append(new byte[1], null));
        }
        check(log.endOffset() == end || log.endOffset() <= nextOffset, "a rejected input took an offset");
        injected++;
        detected++;
    }

    private static void expect(final Class<? extends Throwable> type, final Runnable action)
    {
        try
        {
            action.run();
        }
        catch (final Throwable t)
        {
            check(type.isInstance(t), "expected " + type.getSimpleName() + ", got " + t);
            return;
        }
        check(false, "expected " + type.getSimpleName() + ", got none");
    }

    // ---------------------------------------------------------------- close, reopen, races

    private void closeAndVerify()
    {
        drain(true);
        reader.close();
        allowInterrupts(false);
        store.close();
        store = null;
        verifyAfterClose();
    }

    /** Closes the store from another thread while this one keeps appending and reading. */
    private void closeRace()
    {
        closeRaces++;
        final LogStore closing = store;
        final CountDownLatch closed = new CountDownLatch(1);
        final long delay = random.nextLong(300_000);
        final Thread closer = new Thread(() -> {
            LockSupport.parkNanos(delay);
            closing.close();
            closed.countDown();
        }, "api-model-closer");
        closer.start();
        final int firstInRace = appends;
        racing = true;
        try
        {
            for (int i = 0; i < 2_000 && closed.getCount() > 0; i++)
            {
                raceStep();
            }
            check(closed.await(60, TimeUnit.SECONDS), "close did not return");
            closer.join();
        }
        catch (final InterruptedException e)
        {
            Thread.interrupted();
            try
            {
                check(closed.await(60, TimeUnit.SECONDS), "close did not return");
            }
            catch (final InterruptedException again)
            {
                throw new AssertionError(again);
            }
        }
        racing = false;
        allowInterrupts(false);
        store = null;
        settleRace(firstInRace);
        verifyAfterClose();
    }

    private void raceStep()
    {
        try
        {
            final int r = random.nextInt(10);
            if (r < 6)
            {
                append(random.nextInt(6), r == 0 ? Durability.DIRECT : Durability.MEMORY);
            }
            else if (r < 9)
            {
                read();
            }
            else
            {
                poll();
            }
        }
        catch (final LogClosedException e)
        {
            injected++; // an operation racing close(): the documented outcome
            detected++;
        }
    }

    /**
     * After a close race: every append completed; those that failed did so with LogClosedException and took no
     * offset, so the model's offsets are recomputed over the successful ones.
     */
    private void settleRace(final int firstInRace)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long expected = ackedAppends == 0 ? 0 : base[ackedAppends - 1] + count[ackedAppends - 1];
        int kept = ackedAppends;
        boolean refused = false;
        while (!pending.isEmpty())
        {
            final Pending p = pending.poll();
            while (!p.isDone())
            {
                check(System.nanoTime() < deadline, "append " + p.index + " never completed after the close race");
                Thread.onSpinWait();
            }
            final Throwable error = p.error();
            if (error != null)
            {
                check(error instanceof LogClosedException, "append " + p.index + " failed with " + error);
                check(p.index >= firstInRace, "an append from before the race failed");
                refused = true;
                continue;
            }
            check(!refused, "append " + p.index + " acknowledged after an earlier one was refused by the close");
            check(p.offset() == expected, "append " + p.index + " got offset " + p.offset() + ", expected " + expected);
            // compact the model: the acknowledged append moves down over the refused ones
            base[kept] = expected;
            count[kept] = count[p.index];
            size[kept] = size[p.index];
            check(p.index == kept, "refused appends before an acknowledged one");
            expected += count[kept];
            kept++;
        }
        appends = kept;
        ackedAppends = kept;
        nextOffset = expected;
    }

    /** Reopens nothing: checks the closed store's files through a fresh store, then closes it again. */
    private void verifyAfterClose()
    {
        reopens++;
        try (LogStore check = LogStore.open(config(dir)))
        {
            final Log reopened = check.log("m");
            final long end = reopened.endOffset();
            if (end < nextOffset)
            {
                lost += nextOffset - end;
            }
            check(end == nextOffset, "after close the log ends at " + end + ", acknowledged up to " + nextOffset);
            // the newest 500 appends and 500 random ones, byte for byte
            for (int k = 0; k < 1000 && appends > 0; k++)
            {
                final int index = k < 500 ? Math.max(0, appends - 1 - k) : random.nextInt(appends);
                try (RecordBatch batch = reopened.read(base[index], 1))
                {
                    checkRecord(batch.iterator().next(), index);
                }
            }
        }
        injected++; // a close (clean or raced): every acknowledged append is back
        detected++;
    }

    // ---------------------------------------------------------------- the interrupter

    private void interruptLoop()
    {
        while (running)
        {
            final long at = interruptAtNanos;
            if (at != Long.MAX_VALUE && System.nanoTime() - at >= 0)
            {
                synchronized (interruptLock)
                {
                    if (interruptsAllowed && interruptAtNanos == at)
                    {
                        interruptAtNanos = Long.MAX_VALUE;
                        driver.interrupt();
                    }
                }
            }
            LockSupport.parkNanos(50_000);
        }
    }

    // ---------------------------------------------------------------- process facts

    /** @return each open descriptor's target, for naming a leak. */
    static java.util.Map<String, String> descriptorTargets()
    {
        final java.util.Map<String, String> targets = new java.util.TreeMap<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd")))
        {
            fds.forEach(fd -> {
                try
                {
                    targets.put(fd.getFileName().toString(), Files.readSymbolicLink(fd).toString());
                }
                catch (final java.io.IOException e)
                {
                    // the listing's own descriptor is gone already
                }
            });
        }
        catch (final java.io.IOException e)
        {
            // no /proc: nothing to name
        }
        return targets;
    }

    static long openDescriptors()
    {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd")))
        {
            return fds.count() - 1; // the listing's own descriptor
        }
        catch (final java.io.IOException e)
        {
            return -1;
        }
    }

    static long crashFiles(final Path dir)
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.filter(f -> f.getFileName().toString().startsWith("hs_err_pid")).count();
        }
        catch (final java.io.IOException e)
        {
            return 0;
        }
    }

    private static void check(final boolean ok, final String message)
    {
        if (!ok)
        {
            throw new AssertionError(message);
        }
    }
}
