package io.directlog.nativeio;

import static io.directlog.nativeio.NativeTestSupport.assumeDirectIo;
import static io.directlog.nativeio.NativeTestSupport.fill;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The contract of {@link AioContext}: a batch of O_DIRECT writes to several files, each write's own outcome. */
class AioContextTest
{
    private static final int DIRECT_RW = OpenFlags.READ_WRITE | OpenFlags.CREATE | OpenFlags.DIRECT | OpenFlags.CLOEXEC;
    private static final int BLOCK = 4096;

    private Path dir;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void setUp()
    {
        dir = NativeTestSupport.newDir("aio");
        assumeDirectIo(dir);
    }

    @AfterEach
    void tearDown() throws Exception
    {
        for (int i = open.size() - 1; i >= 0; i--)
        {
            open.get(i).close();
        }
        NativeTestSupport.deleteTree(dir);
    }

    private <T extends AutoCloseable> T keep(final T closeable)
    {
        open.add(closeable);
        return closeable;
    }

    private NativeFile file(final String name) throws NativeIoException
    {
        return keep(NativeFile.open(dir.resolve(name), DIRECT_RW));
    }

    private AlignedMemory block(final long seed)
    {
        final AlignedMemory memory = keep(AlignedMemory.allocate(BLOCK * 2, BLOCK));
        fill(memory, seed);
        return memory;
    }

    private static byte[] bytes(final AlignedMemory memory, final int length)
    {
        final byte[] out = new byte[length];
        memory.buffer().getBytes(0, out);
        return out;
    }

    private void assertHolds(final NativeFile file, final long position, final AlignedMemory expected,
        final int length) throws NativeIoException
    {
        final AlignedMemory in = keep(AlignedMemory.allocate(BLOCK * 2, BLOCK));
        assertEquals(length, file.readFully(in.address(), length, position));
        assertArrayEquals(bytes(expected, length), bytes(in, length), file.path() + " at " + position);
    }

    @Test
    void oneBatchWritesToEveryFileAndEachWriteReportsItsLength() throws Exception
    {
        final AioContext aio = keep(AioContext.open(16));
        final NativeFile[] files = new NativeFile[12];
        final AlignedMemory[] data = new AlignedMemory[files.length];
        for (int i = 0; i < files.length; i++)
        {
            files[i] = file("f" + i);
            data[i] = block(i);
            assertEquals(i, aio.add(files[i], data[i].address(), (i % 2 + 1) * BLOCK, BLOCK * (long)i));
        }
        aio.submitAndAwait();
        for (int i = 0; i < files.length; i++)
        {
            assertEquals((i % 2 + 1) * BLOCK, aio.result(i));
            assertNull(aio.failure(i));
            assertHolds(files[i], BLOCK * (long)i, data[i], (i % 2 + 1) * BLOCK);
        }
        aio.clear();
        assertEquals(0, aio.size());
        final AlignedMemory again = block(99); // the context takes another batch
        aio.add(files[0], again.address(), BLOCK, 0);
        aio.submitAndAwait();
        assertEquals(BLOCK, aio.result(0));
        assertHolds(files[0], 0, again, BLOCK);
    }

    @Test
    void aWriteTheKernelRefusesFailsAloneWithItsErrno() throws Exception
    {
        final AioContext aio = keep(AioContext.open(8));
        final NativeFile a = file("a");
        final NativeFile readOnly = keep(NativeFile.open(file("r").path(), OpenFlags.READ_ONLY | OpenFlags.DIRECT));
        final NativeFile c = file("c");
        final AlignedMemory data = block(1);
        aio.add(a, data.address(), BLOCK, 0);
        aio.add(readOnly, data.address(), BLOCK, 0); // io_submit refuses it (EBADF), after taking the first
        aio.add(c, data.address(), 100, 0); // misaligned for O_DIRECT: EINVAL
        aio.add(c, data.address(), BLOCK, BLOCK);
        aio.submitAndAwait();
        assertEquals(BLOCK, aio.result(0));
        assertEquals(-Errno.EBADF, aio.result(1));
        assertEquals(-Errno.EINVAL, aio.result(2));
        assertEquals(BLOCK, aio.result(3));
        final NativeIoException refused = aio.failure(1);
        assertEquals(Errno.EBADF, refused.errno());
        assertEquals(readOnly.path(), refused.path());
        assertEquals(Errno.EINVAL, aio.failure(2).errno());
        assertHolds(a, 0, data, BLOCK);
        assertHolds(c, BLOCK, data, BLOCK);
    }

    @Test
    void aShortWriteIsAFailureThatSaysSo() throws Exception
    {
        final ScriptedKernel kernel = new ScriptedKernel();
        kernel.shortenSlot = 1;
        final AioContext aio = keep(AioContext.open(4, kernel));
        final AlignedMemory data = block(2);
        aio.add(file("a"), data.address(), BLOCK, 0);
        aio.add(file("b"), data.address(), 2 * BLOCK, 0);
        aio.submitAndAwait();
        assertNull(aio.failure(0));
        assertEquals(BLOCK, aio.result(1), "the kernel's (scripted) result: half the write");
        final NativeIoException e = aio.failure(1);
        assertEquals(0, e.errno());
        assertTrue(e.getMessage().contains("wrote 4096 of 8192 bytes"), e.getMessage());
    }

    @Test
    void writesTheKernelDidNotTakeAreOfferedAgain() throws Exception
    {
        final ScriptedKernel kernel = new ScriptedKernel();
        kernel.acceptAtMost = 2;
        final AioContext aio = keep(AioContext.open(8, kernel));
        final NativeFile[] files = new NativeFile[7];
        final AlignedMemory data = block(3);
        for (int i = 0; i < files.length; i++)
        {
            files[i] = file("f" + i);
            aio.add(files[i], data.address(), BLOCK, 0);
        }
        aio.submitAndAwait();
        assertEquals(4, kernel.submits, "2 + 2 + 2 + 1");
        for (int i = 0; i < files.length; i++)
        {
            assertEquals(BLOCK, aio.result(i));
            assertHolds(files[i], 0, data, BLOCK);
        }
    }

    @Test
    void eagainWithWritesInFlightWaitsForThemAndGoesOn() throws Exception
    {
        final ScriptedKernel kernel = new ScriptedKernel();
        kernel.acceptAtMost = 1;
        kernel.eagainAtSubmit = 2; // the second io_submit: one write in flight
        final AioContext aio = keep(AioContext.open(4, kernel));
        final AlignedMemory data = block(4);
        final NativeFile a = file("a");
        final NativeFile b = file("b");
        aio.add(a, data.address(), BLOCK, 0);
        aio.add(b, data.address(), BLOCK, 0);
        aio.submitAndAwait();
        assertEquals(BLOCK, aio.result(0));
        assertEquals(BLOCK, aio.result(1));
        assertHolds(b, 0, data, BLOCK);
    }

    @Test
    void eagainWithNothingInFlightLeavesTheWritesUnsubmittedForTheCaller() throws Exception
    {
        final ScriptedKernel kernel = new ScriptedKernel();
        kernel.eagainAtSubmit = 1;
        final AioContext aio = keep(AioContext.open(4, kernel));
        final AlignedMemory data = block(5);
        final NativeFile a = file("a");
        aio.add(a, data.address(), BLOCK, 0);
        aio.add(file("b"), data.address(), BLOCK, 0);
        aio.submitAndAwait();
        assertEquals(-Errno.EAGAIN, aio.result(0));
        assertEquals(-Errno.EAGAIN, aio.result(1));
        assertEquals(Errno.EAGAIN, aio.failure(0).errno());
        assertEquals(0, a.size(), "nothing was written");
    }

    @Test
    void aFileClosedBeforeTheBatchFailsWithEbadfAndTheOthersAreWritten() throws Exception
    {
        final AioContext aio = keep(AioContext.open(4));
        final AlignedMemory data = block(6);
        final NativeFile closed = file("closed");
        closed.close();
        final NativeFile b = file("b");
        aio.add(closed, data.address(), BLOCK, 0);
        aio.add(b, data.address(), BLOCK, 0);
        aio.submitAndAwait();
        assertEquals(-Errno.EBADF, aio.result(0));
        assertHolds(b, 0, data, BLOCK);
    }

    @Test
    void aFileStaysOpenWhileItsWriteIsQueuedAndClosesAfter() throws Exception
    {
        final AioContext aio = keep(AioContext.open(4));
        final AlignedMemory data = block(7);
        final NativeFile a = NativeFile.open(dir.resolve("a"), DIRECT_RW);
        aio.add(a, data.address(), BLOCK, 0);
        a.close(); // another thread's close while the write is queued: the descriptor waits for it
        aio.submitAndAwait();
        assertEquals(BLOCK, aio.result(0));
        try (NativeFile check = NativeFile.open(dir.resolve("a"), OpenFlags.READ_ONLY | OpenFlags.DIRECT))
        {
            assertHolds(check, 0, data, BLOCK);
        }
    }

    @Test
    void fullBatchesBadCapacitiesAndClosedContextsAreRefused() throws Exception
    {
        assertThrows(IllegalArgumentException.class, () -> AioContext.open(0));
        assertThrows(IllegalArgumentException.class, () -> AioContext.open(4097));
        final AioContext aio = AioContext.open(1);
        final AlignedMemory data = block(8);
        final NativeFile a = file("a");
        aio.add(a, data.address(), BLOCK, 0);
        assertThrows(IllegalStateException.class, () -> aio.add(a, data.address(), BLOCK, 0));
        assertThrows(IndexOutOfBoundsException.class, () -> aio.result(1));
        aio.clear(); // added, never submitted: the file's hold ends
        aio.close();
        aio.close();
        assertThrows(IllegalStateException.class, () -> aio.add(a, data.address(), BLOCK, 0));
        assertThrows(IllegalStateException.class, aio::submitAndAwait);
        a.close();
        assertEquals(-1, a.fd(), "closed at once: no hold was left behind");
    }

    @Test
    void aRefusedSetupSaysWhy()
    {
        final ScriptedKernel kernel = new ScriptedKernel();
        kernel.setupErrno = Errno.EAGAIN;
        final NativeIoException e = assertThrows(NativeIoException.class, () -> AioContext.open(4, kernel));
        assertEquals("io_setup", e.call());
        assertEquals(Errno.EAGAIN, e.errno());
    }

    @Test
    void anUnsupportedArchitectureMakesNoSystemCall()
    {
        final AioKernel.LinuxAio none = new AioKernel.LinuxAio(Platform.UNSUPPORTED);
        assertEquals(-Errno.ENOSYS, none.setup(4, 0));
        assertEquals(-Errno.ENOSYS, none.submit(0, 1, 0));
    }

    /** The real calls, with scripted departures: fewer writes taken, EAGAIN, a shortened result. */
    private static final class ScriptedKernel implements AioKernel
    {
        private final AioKernel real = AioKernel.linux();
        int acceptAtMost = Integer.MAX_VALUE;
        int eagainAtSubmit;
        int shortenSlot = -1;
        int setupErrno;
        int submits;

        @Override
        public long setup(final int nrEvents, final long ctxIdAddress)
        {
            return setupErrno != 0 ? -setupErrno : real.setup(nrEvents, ctxIdAddress);
        }

        @Override
        public long destroy(final long ctxId)
        {
            return real.destroy(ctxId);
        }

        @Override
        public long submit(final long ctxId, final long nr, final long iocbPointers)
        {
            submits++;
            if (submits == eagainAtSubmit)
            {
                return -Errno.EAGAIN;
            }
            return real.submit(ctxId, Math.min(nr, acceptAtMost), iocbPointers);
        }

        @Override
        public long getEvents(final long ctxId, final long minNr, final long nr, final long events)
        {
            final long n = real.getEvents(ctxId, minNr, nr, events);
            final UnsafeBuffer view = new UnsafeBuffer(events, (int)Math.max(n, 0) * AioContext.EVENT_LENGTH);
            for (int i = 0; i < n; i++)
            {
                if (view.getLong(i * AioContext.EVENT_LENGTH) == shortenSlot)
                {
                    view.putLong(i * AioContext.EVENT_LENGTH + 16, view.getLong(i * AioContext.EVENT_LENGTH + 16) / 2);
                }
            }
            return n;
        }
    }
}
