package io.directlog.storage.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.storage.spi.BlockFile;

/**
 * A segment's read descriptor closed as idle while reads run (issue 18): no read ever runs on a closed descriptor
 * (whose number the kernel may have given to another file), every descriptor opened is closed once, and a read
 * after an idle close opens one again.
 */
class SegmentReadFileTest
{
    /** A descriptor that fails any call after its close, and counts opens and closes. */
    private static final class CountedFile implements BlockFile
    {
        private final AtomicBoolean closed = new AtomicBoolean();
        private final AtomicInteger closes;

        CountedFile(final AtomicInteger closes)
        {
            this.closes = closes;
        }

        @Override
        public Path path()
        {
            return Paths.get("00000000000000000000.log");
        }

        @Override
        public void write(final ByteBuffer source, final int index, final int length, final long position)
        {
            throw new UnsupportedOperationException("read descriptor");
        }

        @Override
        public int read(final ByteBuffer target, final int index, final int length, final long position)
            throws IOException
        {
            if (closed.get())
            {
                throw new IOException("read on a closed descriptor");
            }
            Thread.onSpinWait(); // a read takes a moment: the closer gets its chance to run in between
            if (closed.get())
            {
                throw new IOException("descriptor closed during a read");
            }
            return length;
        }

        @Override
        public void datasync()
        {
        }

        @Override
        public void allocate(final long length)
        {
        }

        @Override
        public long size()
        {
            return 1 << 20;
        }

        @Override
        public void truncate(final long length)
        {
        }

        @Override
        public void close()
        {
            assertTrue(closed.compareAndSet(false, true), "closed twice");
            closes.incrementAndGet();
        }
    }

    @Test
    void aReadAfterAnIdleCloseOpensTheDescriptorAgain() throws Exception
    {
        final AtomicInteger opens = new AtomicInteger();
        final AtomicInteger closes = new AtomicInteger();
        final SegmentReadFile file = new SegmentReadFile(() ->
        {
            opens.incrementAndGet();
            return new CountedFile(closes);
        });
        final ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
        assertFalse(file.isOpen(), "opened by the first read only");
        assertEquals(4096, file.read(buffer, 0, 4096, 0));
        assertTrue(file.isOpen());
        assertFalse(file.closeIfIdle(System.nanoTime(), 60_000_000_000L), "used a moment ago");
        assertTrue(file.closeIfIdle(System.nanoTime() + 1, 0));
        assertEquals(1, closes.get());
        assertEquals(4096, file.read(buffer, 0, 4096, 0));
        assertEquals(2, opens.get());
        file.closeForGood();
        assertEquals(2, closes.get());
        assertThrows(ClosedChannelException.class, () -> file.read(buffer, 0, 4096, 0));
        assertEquals(2, opens.get(), "nothing opened after the close for good");
    }

    @Test
    @Timeout(60)
    void readersRacingIdleClosesNeverReadAClosedDescriptor() throws Exception
    {
        final int readers = 3;
        final int readsEach = 20_000;
        final AtomicInteger opens = new AtomicInteger();
        final AtomicInteger closes = new AtomicInteger();
        final SegmentReadFile file = new SegmentReadFile(() ->
        {
            opens.incrementAndGet();
            return new CountedFile(closes);
        });
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final CountDownLatch start = new CountDownLatch(1);
        final CountDownLatch done = new CountDownLatch(readers);
        for (int r = 0; r < readers; r++)
        {
            final Thread t = new Thread(() ->
            {
                final ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
                try
                {
                    start.await();
                    for (int i = 0; i < readsEach; i++)
                    {
                        assertEquals(4096, file.read(buffer, 0, 4096, 0));
                    }
                }
                catch (final Throwable e)
                {
                    failures.add(e);
                }
                finally
                {
                    done.countDown();
                }
            }, "reader-" + r);
            t.setDaemon(true);
            t.start();
        }
        start.countDown();
        long closed = 0;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (done.getCount() > 0 && System.nanoTime() - deadline < 0)
        {
            closed += file.closeIfIdle(System.nanoTime() + 1, 0) ? 1 : 0; // every descriptor is "idle" at once
        }
        assertTrue(done.await(30, TimeUnit.SECONDS), "readers did not finish");
        assertEquals(List.of(), failures, "reads failed");
        file.closeForGood();
        assertEquals(opens.get(), closes.get(), "every descriptor opened is closed once, after its last read");
        assertTrue(closed > 0, "no idle close ran during the reads");
    }
}
