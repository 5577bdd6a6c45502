package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.storage.io.BlockFile;
import io.directlog.storage.io.BlockIo;
import io.directlog.storage.io.FileMode;
import io.directlog.storage.io.NativeBlockIo;

/**
 * A log closed while the preparer is between its "is the log closing?" check and handing the segment over must
 * not leak the segment's descriptors (found on a loop filesystem as "umount: target is busy").
 */
class PreparerCloseRaceTest
{
    @Test
    @Timeout(60)
    void segmentPreparedWhileItsLogClosesHasItsFilesClosed() throws Exception
    {
        final Path dir = TestDirs.create("preparer-close-race");
        final GatedBlockIo io = new GatedBlockIo(new NativeBlockIo(4096));
        final StoreConfig config = StoreConfig.builder(dir).memoryBudget(64L << 20).writerThreads(1).blockIo(io)
            .defaultLogConfig(LogConfig.builder().segmentSize(1 << 20).build()).build();
        try (LogStore store = LogStore.open(config))
        {
            final Log log = store.log("a");
            assertTrue(io.preparerInOpen.await(30, TimeUnit.SECONDS), "the preparer never opened a segment");
            log.close(); // deregisters and closes the log's files while the preparer is held inside open()
            io.release.countDown();
        } // joins the preparer thread: its onPrepared has run
        assertEquals(Set.of(), io.open, "descriptors left open after close");
    }

    /** Holds the preparer's first DSYNC open of a segment until released; tracks every file still open. */
    private static final class GatedBlockIo implements BlockIo
    {
        private final BlockIo delegate;
        final Set<BlockFile> open = ConcurrentHashMap.newKeySet();
        final CountDownLatch preparerInOpen = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final AtomicBoolean gated = new AtomicBoolean();

        GatedBlockIo(final BlockIo delegate)
        {
            this.delegate = delegate;
        }

        @Override
        public BlockFile open(final Path path, final FileMode mode, final boolean create) throws IOException
        {
            final BlockFile file = new Tracked(delegate.open(path, mode, create));
            open.add(file);
            if (mode == FileMode.DIRECT_DSYNC && Thread.currentThread().getName().equals("directlog-segment-preparer") &&
                gated.compareAndSet(false, true))
            {
                preparerInOpen.countDown();
                try
                {
                    release.await();
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            }
            return file;
        }

        @Override
        public void rename(final Path from, final Path to) throws IOException
        {
            delegate.rename(from, to);
        }

        @Override
        public void delete(final Path path) throws IOException
        {
            delegate.delete(path);
        }

        @Override
        public List<Path> list(final Path dir) throws IOException
        {
            return delegate.list(dir);
        }

        @Override
        public void createDirectories(final Path dir) throws IOException
        {
            delegate.createDirectories(dir);
        }

        @Override
        public void syncDirectory(final Path dir) throws IOException
        {
            delegate.syncDirectory(dir);
        }

        @Override
        public int alignment()
        {
            return delegate.alignment();
        }

        @Override
        public boolean isDirect()
        {
            return delegate.isDirect();
        }

        @Override
        public String describe()
        {
            return "gated " + delegate.describe();
        }

        private final class Tracked implements BlockFile
        {
            private final BlockFile file;

            Tracked(final BlockFile file)
            {
                this.file = file;
            }

            @Override
            public Path path()
            {
                return file.path();
            }

            @Override
            public void write(final ByteBuffer source, final int index, final int length, final long position)
                throws IOException
            {
                file.write(source, index, length, position);
            }

            @Override
            public int read(final ByteBuffer target, final int index, final int length, final long position)
                throws IOException
            {
                return file.read(target, index, length, position);
            }

            @Override
            public void datasync() throws IOException
            {
                file.datasync();
            }

            @Override
            public void allocate(final long length) throws IOException
            {
                file.allocate(length);
            }

            @Override
            public long size() throws IOException
            {
                return file.size();
            }

            @Override
            public void truncate(final long length) throws IOException
            {
                file.truncate(length);
            }

            @Override
            public void close() throws IOException
            {
                open.remove(this);
                file.close();
            }

            @Override
            public String toString()
            {
                return file.path().getFileName().toString();
            }
        }
    }
}
