package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.io.DelegatingBlockFile;
import io.directlog.storage.io.DelegatingBlockIo;
import io.directlog.storage.spi.FileMode;
import io.directlog.storage.io.NativeBlockIo;

/**
 * A log closed while the preparer is between its "is the log closing?" check and handing the segment over must
 * not leak the segment's descriptors (found on a loop filesystem as "umount: target is busy"). A prepared file now
 * waits without a descriptor (the roll opens it), so the preparer is held at its last step, the rename into place,
 * and nothing it opened may stay open.
 */
class PreparerCloseRaceTest
{
    @Test
    @Timeout(60)
    void segmentPreparedWhileItsLogClosesHasItsFilesClosed() throws Exception
    {
        final Path dir = TestDirs.create("preparer-close-race");
        final GatedBlockIo io = new GatedBlockIo(new NativeBlockIo(4096));
        final StoreConfig config = TestStores.store(dir).blockIo(io).build();
        try (LogStore store = LogStore.open(config))
        {
            final Log log = store.log("a");
            assertTrue(io.preparerInRename.await(30, TimeUnit.SECONDS), "the preparer never renamed a segment");
            log.close(); // deregisters and closes the log's files while the preparer is held inside rename()
            io.release.countDown();
        } // joins the preparer thread: its onPrepared has run
        assertEquals(Set.of(), io.open, "descriptors left open after close");
    }

    /** Holds the preparer's first rename of a segment into place until released; tracks every file still open. */
    private static final class GatedBlockIo extends DelegatingBlockIo
    {
        final Set<BlockFile> open = ConcurrentHashMap.newKeySet();
        final CountDownLatch preparerInRename = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final AtomicBoolean gated = new AtomicBoolean();

        GatedBlockIo(final BlockIo delegate)
        {
            super(delegate);
        }

        @Override
        public BlockFile open(final Path path, final FileMode mode, final boolean create) throws IOException
        {
            final BlockFile file = new Tracked(delegate().open(path, mode, create));
            open.add(file);
            return file;
        }

        @Override
        public void rename(final Path from, final Path to) throws IOException
        {
            delegate().rename(from, to);
            if (to.getFileName().toString().endsWith(".log") &&
                Thread.currentThread().getName().equals("directlog-segment-preparer") && gated.compareAndSet(false, true))
            {
                preparerInRename.countDown();
                try
                {
                    release.await();
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public String describe()
        {
            return "gated " + delegate().describe();
        }

        private final class Tracked extends DelegatingBlockFile
        {
            Tracked(final BlockFile file)
            {
                super(file);
            }

            @Override
            public void close() throws IOException
            {
                open.remove(this);
                delegate().close();
            }

            @Override
            public String toString()
            {
                return path().getFileName().toString();
            }
        }
    }
}
