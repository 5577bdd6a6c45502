package io.directlog.storage.writer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.directlog.storage.io.DelegatingBlockIo;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.BlockWriteBatch;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The order of a shared flush's steps, and who a failure reaches, with members and a batch of writes that record
 * what happens to them.
 */
class SharedFlushTest
{
    private final List<String> events = new ArrayList<>();
    private final RecordingIo io = new RecordingIo();

    @Test
    void everyLogAddsItsWriteThenTheWritesGoOutTogetherThenOneFlushThenEveryLogAcknowledges()
    {
        final SharedFlush flush = new SharedFlush();
        flush.join("dev", new Member("a", true));
        flush.join("dev", new Member("b", true));
        flush.join("dev", new Member("c", true));
        assertEquals(3, flush.run());
        assertEquals(List.of("add a", "add b", "add c", "batch a b c", "written a", "written b", "written c",
            "datasync c", "done a", "done b", "done c"), events);
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
        assertEquals(0, io.batchesMade, "a log alone takes no batch");
    }

    @Test
    void aFailedFlushFailsEveryLogItCoveredAndNoneThatFailedBeforeItsWrite()
    {
        final SharedFlush flush = new SharedFlush();
        flush.join("dev", new Member("a", true));
        flush.join("dev", new Member("b", false)); // failed before its write: it failed itself, added nothing
        flush.join("dev", new Member("c", true, true));
        flush.run();
        assertEquals(List.of("add a", "add b", "add c", "batch a c", "written a", "written c", "datasync c",
            "failed a: EIO", "failed c: EIO"), events);
        assertEquals(0, flush.flushes());
    }

    @Test
    void aFailedWriteOfOneLogAmongSeveralFailsThatLogAloneAndTheFlushCoversTheOthers()
    {
        final SharedFlush flush = new SharedFlush();
        flush.join("dev", new Member("a", true));
        flush.join("dev", new Member("b", true));
        flush.join("dev", new Member("c", true));
        io.failWriteOf = "c"; // the last: the flush goes through the last file written, b's
        assertEquals(3, flush.run());
        assertEquals(List.of("add a", "add b", "add c", "batch a b c", "written a", "written b",
            "write failed c: EIO c", "datasync b", "done a", "done b"), events);
        assertEquals(1, flush.flushes());
        assertEquals(2, flush.logsCovered());
    }

    @Test
    void aBatchThatBreaksFailsEveryLogInItAndNothingIsFlushed()
    {
        final SharedFlush flush = new SharedFlush();
        flush.join("dev", new Member("a", true));
        flush.join("dev", new Member("b", true));
        io.breakBatch = true;
        assertEquals(2, flush.run());
        assertEquals(List.of("add a", "add b", "batch a b", "write failed a: batch broke",
            "write failed b: batch broke"), events);
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
        assertEquals(List.of("add a", "add b", "batch a b", "written a", "written b", "datasync b", "done a",
            "done b", "add x", "add y", "batch x y", "written x", "written y", "datasync y", "done x", "done y",
            "alone z"), events);
        events.clear();
        assertEquals(0, flush.run());
        assertEquals(List.of(), events);
        assertEquals(1, io.batchesMade, "the writer keeps its batch");
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
        assertEquals(List.of("add a", "add b", "failed b: b's write", "add c", "batch a c", "written a",
            "written c", "datasync c", "done a", "done c"), events);
        events.clear();
        assertEquals(0, flush.run(), "the next cycle starts empty");
        final Member alone = new Member("d", true);
        alone.writeError = new OutOfMemoryError("d alone");
        flush.join("dev", alone);
        flush.run();
        assertEquals(List.of("alone d", "failed d: d alone"), events);
    }

    @Test
    void closeLetsGoOfTheBatchAndALaterFlushTakesANewOne()
    {
        final SharedFlush flush = new SharedFlush();
        flush.join("dev", new Member("a", true));
        flush.join("dev", new Member("b", true));
        flush.run();
        flush.close();
        assertEquals(1, io.batchesClosed);
        flush.close();
        assertEquals(1, io.batchesClosed, "closed once");
        flush.join("dev", new Member("a", true));
        flush.join("dev", new Member("b", true));
        flush.run();
        assertEquals(2, io.batchesMade);
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
        public BlockIo io()
        {
            return io;
        }

        @Override
        public BlockFile addWrite(final BlockWriteBatch batch)
        {
            events.add("add " + name);
            if (writeError != null)
            {
                throw writeError;
            }
            if (!writes)
            {
                return null;
            }
            final RecordingFile file = new RecordingFile(name, failsSync);
            batch.add(file, null, 0, 0, 0);
            return file;
        }

        @Override
        public boolean onWritten(final Throwable failure, final long nanos)
        {
            events.add(failure == null ? "written " + name : "write failed " + name + ": " + failure.getMessage());
            return failure == null;
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

    /** The I/O layer of the members: its batch records the writes it makes together, and may fail one or all. */
    private final class RecordingIo extends DelegatingBlockIo
    {
        String failWriteOf;
        boolean breakBatch;
        int batchesMade;
        int batchesClosed;

        RecordingIo()
        {
            super(null);
        }

        @Override
        public BlockWriteBatch newWriteBatch()
        {
            batchesMade++;
            return new BlockWriteBatch()
            {
                private final List<BlockFile> files = new ArrayList<>();
                private final List<Throwable> failures = new ArrayList<>();

                @Override
                public int add(final BlockFile file, final ByteBuffer source, final int index, final int length,
                    final long position)
                {
                    files.add(file);
                    return files.size() - 1;
                }

                @Override
                public int size()
                {
                    return files.size();
                }

                @Override
                public void writeAll()
                {
                    events.add("batch " + String.join(" ", files.stream().map(f -> f.path().toString()).toList()));
                    if (breakBatch)
                    {
                        throw new IllegalStateException("batch broke");
                    }
                    for (final BlockFile f : files)
                    {
                        failures.add(f.path().toString().equals(failWriteOf) ? new IOException("EIO " + f.path()) :
                            null);
                    }
                }

                @Override
                public Throwable failure(final int write)
                {
                    return failures.get(write);
                }

                @Override
                public void clear()
                {
                    files.clear();
                    failures.clear();
                }

                @Override
                public void close()
                {
                    batchesClosed++;
                }
            };
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
