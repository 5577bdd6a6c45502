package io.directlog.storage.writer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.directlog.storage.spi.BlockFile;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The order of a shared flush's steps, and who a failure reaches, with members that record what happens to them. */
class SharedFlushTest
{
    private final List<String> events = new ArrayList<>();

    @Test
    void everyLogWritesThenOneFlushThenEveryLogAcknowledges()
    {
        final SharedFlush flush = new SharedFlush();
        flush.join("dev", new Member("a", true));
        flush.join("dev", new Member("b", true));
        flush.join("dev", new Member("c", true));
        assertEquals(3, flush.run());
        assertEquals(List.of("write a", "write b", "write c", "datasync c", "done a", "done b", "done c"), events);
        assertEquals(1, flush.flushes());
        assertEquals(3, flush.logsCovered());
    }

    @Test
    void aLogAloneInItsCycleFlushesAsItDidBefore()
    {
        final SharedFlush flush = new SharedFlush();
        flush.join("dev", new Member("a", true));
        assertEquals(1, flush.run());
        assertEquals(List.of("alone a"), events);
        assertEquals(0, flush.flushes());
    }

    @Test
    void aFailedFlushFailsEveryLogItCoveredAndNoneWhoseWriteFailedAlready()
    {
        final SharedFlush flush = new SharedFlush();
        flush.join("dev", new Member("a", true));
        flush.join("dev", new Member("b", false)); // its write failed: it failed itself
        flush.join("dev", new Member("c", true, true));
        flush.run();
        assertEquals(List.of("write a", "write b", "write c", "datasync c", "failed a: EIO", "failed c: EIO"),
            events);
        assertEquals(0, flush.flushes());
    }

    @Test
    void logsOfTwoDevicesFlushEachDeviceOnceAndAnotherCycleStartsEmpty()
    {
        final SharedFlush flush = new SharedFlush();
        flush.join("dev1", new Member("a", true));
        flush.join("dev2", new Member("x", true));
        flush.join("dev1", new Member("b", true));
        flush.join("dev2", new Member("y", true));
        flush.join("dev3", new Member("z", true));
        assertEquals(5, flush.run());
        assertEquals(List.of("write a", "write b", "datasync b", "done a", "done b",
            "write x", "write y", "datasync y", "done x", "done y", "alone z"), events);
        events.clear();
        assertEquals(0, flush.run());
        assertEquals(List.of(), events);
    }

    @Test
    void anErrorFromOneLogsWriteFailsThatLogOnlyAndTheFlushGoesOn()
    {
        final SharedFlush flush = new SharedFlush();
        flush.join("dev", new Member("a", true));
        final Member b = new Member("b", true);
        b.writeError = new StackOverflowError("b's write");
        flush.join("dev", b);
        flush.join("dev", new Member("c", true));
        assertEquals(3, flush.run());
        assertEquals(List.of("write a", "write b", "failed b: b's write", "write c", "datasync c", "done a",
            "done c"), events);
        events.clear();
        assertEquals(0, flush.run(), "the next cycle starts empty");
        final Member alone = new Member("d", true);
        alone.writeError = new OutOfMemoryError("d alone");
        flush.join("dev", alone);
        flush.run();
        assertEquals(List.of("alone d", "failed d: d alone"), events);
    }

    /** A log as the shared flush sees it; its file records the datasync and may fail it. */
    private final class Member implements SharedFlushMember
    {
        private final String name;
        private final boolean writes;
        private final boolean failsSync;
        Error writeError;

        Member(final String name, final boolean writes)
        {
            this(name, writes, false);
        }

        Member(final String name, final boolean writes, final boolean failsSync)
        {
            this.name = name;
            this.writes = writes;
            this.failsSync = failsSync;
        }

        @Override
        public BlockFile writeForSharedFlush()
        {
            events.add("write " + name);
            if (writeError != null)
            {
                throw writeError;
            }
            return writes ? new RecordingFile(name, failsSync) : null;
        }

        @Override
        public void onSharedFlush(final Throwable failure)
        {
            events.add(failure == null ? "done " + name : "failed " + name + ": " + failure.getMessage());
        }

        @Override
        public void flushAlone()
        {
            events.add("alone " + name);
            if (writeError != null)
            {
                throw writeError;
            }
        }
    }

    private final class RecordingFile implements BlockFile
    {
        private final String name;
        private final boolean fails;

        RecordingFile(final String name, final boolean fails)
        {
            this.name = name;
            this.fails = fails;
        }

        @Override
        public Path path()
        {
            return Path.of(name);
        }

        @Override
        public void datasync() throws IOException
        {
            events.add("datasync " + name);
            if (fails)
            {
                throw new IOException("EIO");
            }
        }

        @Override
        public void write(final ByteBuffer source, final int index, final int length, final long position)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public int read(final ByteBuffer target, final int index, final int length, final long position)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public void allocate(final long length)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public long size()
        {
            return 0;
        }

        @Override
        public void truncate(final long length)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close()
        {
        }
    }
}
