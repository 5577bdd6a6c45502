package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.nativeio.Errno;
import io.directlog.storage.io.ErrorInjectingBlockIo;
import io.directlog.storage.io.NativeBlockIo;

/**
 * Closing a log on a full filesystem (issue 17, defect 7): the index files a close writes take new blocks and get
 * ENOSPC, while the clean shutdown itself (a checkpoint slot overwritten in place) needs no space. The close records
 * it anyway and says so with a WARNING; a close that cannot record it (the checkpoint write fails) throws, so the
 * caller knows the next open recovers as after a crash. Injected with {@link ErrorInjectingBlockIo} over the native
 * layer (skipped where the build's filesystem has no O_DIRECT).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CloseOnFullFilesystemTest
{
    /** The store's directory and the layer that injects its errors; set by {@link #open}, one per test. */
    private Path dir;
    private ErrorInjectingBlockIo io;

    /** Opens a store in a new directory over the native layer, through an injector that fails nothing yet. */
    private LogStore open(final String name) throws IOException
    {
        dir = TestDirs.create(name);
        io = new ErrorInjectingBlockIo(new NativeBlockIo(4096), 1);
        return LogStore.open(TestStores.store(dir, TestStores.log().syncInterval(Duration.ofHours(1)).build())
            .memoryBudget(16L << 20).blockIo(io).build());
    }

    @Test
    void aCloseWhoseIndexWriteGetsEnospcStillRecordsACleanShutdownAndWarns() throws Exception
    {
        final LogStore store = open("close-enospc");
        RecoveryTest.append(store.log("a"), 0, 200);
        io.failFrom(ErrorInjectingBlockIo.Op.WRITE, Errno.ENOSPC, ErrorInjectingBlockIo.named(".idx.tmp"));
        io.failFrom(ErrorInjectingBlockIo.Op.ALLOCATE, Errno.ENOSPC, ErrorInjectingBlockIo.named(".idx.tmp"));
        final List<String> seen = TestWarnings.during(store::close);
        assertTrue(seen.stream().anyMatch(m -> m.contains("could not be written at close")), "a WARNING: " + seen);
        final long[] cp = StoreFiles.checkpoint(dir.resolve("a"));
        assertEquals(1, cp[4] & 1, "the clean shutdown is recorded");
        try (LogStore again = LogStore.open(RecoveryTest.config(dir, RecoveryMode.ABSOLUTE_CONSISTENCY)))
        {
            final Log log = again.log("a");
            assertEquals(200, log.endOffset(), log.recoveryReport().toString());
            RecoveryTest.assertRecords(log, 0, 200);
        }
    }

    @Test
    void aCloseThatCannotRecordACleanShutdownThrowsAndWarns() throws Exception
    {
        final LogStore store = open("close-eio");
        RecoveryTest.append(store.log("a"), 0, 50);
        io.failFrom(ErrorInjectingBlockIo.Op.WRITE, Errno.EIO, ErrorInjectingBlockIo.named("checkpoint"));
        final Log log = store.log("a");
        final List<String> seen = TestWarnings.during(() -> assertThrows(StorageException.class, log::close));
        assertTrue(seen.stream().anyMatch(m -> m.contains("could not record a clean shutdown")), "a WARNING: " + seen);
        store.close(); // the store closes; that log's failure was thrown by its own close and logged
        try (LogStore again = LogStore.open(RecoveryTest.config(dir, RecoveryMode.TOLERATE_TORN_TAIL)))
        {
            final Log reopened = again.log("a");
            assertEquals(50, reopened.endOffset());
            assertTrue(!reopened.recoveryReport().cleanShutdown());
        }
    }

    @Test
    void aStoreCloseClosesEverythingThenThrowsNamingTheLogsWhoseCloseFailed() throws Exception
    {
        final LogStore store = open("close-store-eio");
        RecoveryTest.append(store.log("a"), 0, 50);
        RecoveryTest.append(store.log("b"), 0, 30);
        io.failFrom(ErrorInjectingBlockIo.Op.WRITE, Errno.EIO, ErrorInjectingBlockIo.under(dir.resolve("a"),
            "checkpoint"));
        final StorageException thrown = assertThrows(StorageException.class, store::close);
        assertTrue(thrown.getMessage().contains("[a]"), "names the log that failed: " + thrown.getMessage());
        store.close(); // closed all the same: a second close has nothing left to do
        assertThrows(LogClosedException.class, () -> store.log("b"));
        // the store's lock was released and the healthy log's clean shutdown recorded despite the failure
        try (LogStore again = LogStore.open(RecoveryTest.config(dir, RecoveryMode.TOLERATE_TORN_TAIL)))
        {
            final Log a = again.log("a");
            assertEquals(50, a.endOffset());
            assertTrue(!a.recoveryReport().cleanShutdown(), a.recoveryReport().toString());
            final Log b = again.log("b");
            assertEquals(30, b.endOffset());
            assertTrue(b.recoveryReport().cleanShutdown(), b.recoveryReport().toString());
        }
    }
}
