package io.directlog.storage.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.storage.io.sim.IoCall;
import io.directlog.storage.io.sim.SimulatedBlockIo;

/**
 * The preparer syncs a new segment's zeros chunk by chunk: the device's volatile cache never holds more than
 * {@link SegmentPreparer#ZERO_SYNC_BYTES} of them, so a DSYNC append whose flush lands during a zero-fill writes out
 * at most that much besides its own block (a flush covers everything cached). And it still writes every byte of the
 * file and syncs all of it before the file gets its final name and goes to the writer: an allocated, unwritten
 * extent is not durable without a metadata sync, so the writer's O_DIRECT overwrites rely on real, synced zeros.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SegmentPreparerZeroSyncTest
{
    /** Several chunks, and not a multiple of one, so the last write is a short one. */
    private static final int SIZE = 5 * SegmentPreparer.ZERO_SYNC_BYTES + (64 << 10);
    private static final int SEGMENTS = 2;

    @Test
    void zerosAreSyncedChunkByChunkAndAllOfThemBeforeTheSegmentIsHandedOut() throws Exception
    {
        final SimulatedBlockIo io = new SimulatedBlockIo();
        final Path dir = Path.of("/sim/zero-sync");
        io.createDirectories(dir);
        final Queue queue = new Queue(dir);
        try (SegmentPreparer preparer = new SegmentPreparer(io))
        {
            preparer.register(queue);
            assertTrue(queue.done.await(30, TimeUnit.SECONDS), "prepared only " + queue.prepared.size() + " of " +
                SEGMENTS + " segments; failure: " + queue.failure);
            preparer.deregister(queue);
        }
        assertEquals(SEGMENTS, queue.prepared.size());
        final Map<Integer, Long> unsynced = new HashMap<>();
        final Map<Integer, BitSet> written = new HashMap<>();
        final List<Integer> handedOut = new ArrayList<>();
        long most = 0;
        for (final IoCall call : io.trace())
        {
            switch (call.kind())
            {
                case WRITE ->
                {
                    assertTrue(call.data() == null, "the preparer wrote non-zero bytes: " + call);
                    most = Math.max(most, unsynced.merge(call.inode(), (long)call.length(), Long::sum));
                    written.computeIfAbsent(call.inode(), i -> new BitSet()).set(
                        (int)(call.position() / SimulatedBlockIo.PAGE),
                        (int)((call.position() + call.length()) / SimulatedBlockIo.PAGE));
                }
                case SYNC -> unsynced.put(call.inode(), 0L);
                case RENAME ->
                {
                    assertEquals(0L, unsynced.getOrDefault(call.inode(), 0L), "renamed to " + call.target() +
                        " with zeros not synced yet");
                    assertEquals(SIZE / SimulatedBlockIo.PAGE, written.getOrDefault(call.inode(), new BitSet())
                        .cardinality(), "not every page of " + call.target() + " was written with zeros");
                    handedOut.add(call.inode());
                }
                default ->
                {
                    // creates, sizes, directory syncs: not what this test checks
                }
            }
        }
        assertEquals(SEGMENTS, handedOut.size(), "renames of prepared files");
        assertTrue(most > 0 && most <= SegmentPreparer.ZERO_SYNC_BYTES, "the device cache held up to " + most +
            " bytes of unsynced zeros; the bound is " + SegmentPreparer.ZERO_SYNC_BYTES);
        for (final PreparedSegment segment : queue.prepared)
        {
            assertEquals(SIZE, segment.size());
            final byte[] content = io.content(segment.path());
            assertEquals(SIZE, content.length, segment.path() + "'s length");
            for (int i = 0; i < content.length; i++)
            {
                assertEquals(0, content[i], segment.path() + " byte " + i);
            }
        }
    }

    /** One log that wants {@link #SEGMENTS} new files of {@link #SIZE} bytes, and nothing recycled. */
    private static final class Queue implements SpareSegmentQueue
    {
        private final Path dir;
        private final AtomicLong sequence = new AtomicLong();
        private final List<PreparedSegment> prepared = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final CountDownLatch done = new CountDownLatch(SEGMENTS);
        private volatile Throwable failure;

        Queue(final Path dir)
        {
            this.dir = dir;
        }

        @Override
        public String name()
        {
            return "zero-sync";
        }

        @Override
        public boolean isClosing()
        {
            return false;
        }

        @Override
        public Path directory()
        {
            return dir;
        }

        @Override
        public int nextSegmentSize()
        {
            return SIZE;
        }

        @Override
        public void reserveWritePage()
        {
            // no page cache here
        }

        @Override
        public int preparedCount()
        {
            return prepared.size();
        }

        @Override
        public int preparedTarget()
        {
            return SEGMENTS;
        }

        @Override
        public boolean wantsAnother()
        {
            return prepared.size() < SEGMENTS;
        }

        @Override
        public RecycledFile pollRecycled()
        {
            return null;
        }

        @Override
        public long takePrepareSequence()
        {
            return sequence.getAndIncrement();
        }

        @Override
        public void onPrepared(final PreparedSegment segment)
        {
            prepared.add(segment);
            done.countDown();
        }

        @Override
        public void onPrepareFailed(final Throwable cause)
        {
            failure = cause;
        }
    }
}
