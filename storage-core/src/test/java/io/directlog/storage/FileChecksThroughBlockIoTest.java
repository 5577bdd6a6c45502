package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.io.DelegatingBlockIo;
import io.directlog.storage.io.NativeBlockIo;

/** The engine asks its BlockIo, never the filesystem, whether files exist and which logs there are. */
class FileChecksThroughBlockIoTest
{
    @Test
    @Timeout(60)
    void existenceChecksAndLogListingGoThroughTheBlockIo() throws Exception
    {
        final Path dir = TestDirs.create("checks-through-blockio");
        final RecordingBlockIo io = new RecordingBlockIo(new NativeBlockIo(4096));
        final StoreConfig config = TestStores.store(dir).blockIo(io).build();
        try (LogStore store = LogStore.open(config))
        {
            store.log("a").append("x".getBytes()).join();
        }
        try (LogStore store = LogStore.open(config))
        {
            assertEquals(1, store.log("a").endOffset()); // its first use loads it (the open read the manifest)
            assertEquals(Set.of("a"), store.logNames());
            assertTrue(store.deleteLog("a"));
            assertFalse(store.logNames().contains("a"));
        }
        assertTrue(io.checked.contains("log.meta"), () -> "exists() calls: " + io.checked);
        assertTrue(io.checked.stream().anyMatch(n -> n.startsWith("checkpoint")), () -> "exists(): " + io.checked);
        assertTrue(io.checked.stream().anyMatch(n -> n.endsWith(".idx") || n.contains("index")),
            () -> "exists(): " + io.checked);
        assertTrue(io.listedDirectories > 0, "logNames/deleteLog did not list through the BlockIo");
    }

    private static final class RecordingBlockIo extends DelegatingBlockIo
    {
        final Set<String> checked = ConcurrentHashMap.newKeySet();
        volatile int listedDirectories;

        RecordingBlockIo(final BlockIo delegate)
        {
            super(delegate);
        }

        @Override
        public boolean exists(final Path path) throws IOException
        {
            checked.add(path.getFileName().toString());
            return delegate().exists(path);
        }

        @Override
        public List<Path> listDirectories(final Path dir) throws IOException
        {
            listedDirectories++;
            return delegate().listDirectories(dir);
        }

        @Override
        public String describe()
        {
            return "recording " + delegate().describe();
        }
    }
}
