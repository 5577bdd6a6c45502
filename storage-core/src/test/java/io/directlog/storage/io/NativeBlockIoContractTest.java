package io.directlog.storage.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import io.directlog.nativeio.DirectIoProbe;
import io.directlog.nativeio.NativeIo;
import io.directlog.storage.TestDirs;
import io.directlog.storage.page.PageMemory;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;
import org.junit.jupiter.api.Test;

/** O_DIRECT through storage-native against the {@link BlockIoContract}; skipped where O_DIRECT is unavailable. */
class NativeBlockIoContractTest extends BlockIoContract
{
    private Path directory;
    private int alignment;

    @Override
    BlockIo newIo() throws IOException
    {
        assumeTrue(NativeIo.isAvailable(), () -> "native I/O unavailable: " + NativeIo.unavailabilityCause());
        directory = TestDirs.create("native-io");
        final DirectIoProbe.Result probe = DirectIoProbe.probe(directory);
        assumeTrue(probe.supported(), () -> "no O_DIRECT in " + directory + ": " + probe.reason());
        alignment = probe.alignment();
        return new NativeBlockIo(alignment);
    }

    @Override
    Path newDirectory()
    {
        return directory;
    }

    /**
     * Its batch puts its own files' writes in flight through native AIO (no pwrite), and writes a file it does not
     * own (a test's wrapper) through that file's own write; more writes than one io_submit takes go in several.
     */
    @Test
    void itsBatchWritesItsOwnFilesThroughAioAndAWrappedFileThroughItsWrite() throws IOException
    {
        final int writes = NativeWriteBatch.AIO_WRITES + 3;
        final BlockFile[] own = new BlockFile[writes];
        final AtomicInteger wrappedWrites = new AtomicInteger();
        final PageMemory page = PageMemory.allocate(4096, 4096);
        try (NativeWriteBatch batch = (NativeWriteBatch)io.newWriteBatch();
            BlockFile wrapped = new DelegatingBlockFile(io.open(dir.resolve("wrapped"), FileMode.DIRECT, true))
            {
                @Override
                public void write(final ByteBuffer source, final int index, final int length, final long position)
                    throws IOException
                {
                    wrappedWrites.incrementAndGet();
                    super.write(source, index, length, position);
                }
            })
        {
            assertTrue(batch.usesAio(), "io_setup works on this machine");
            final ByteBuffer source = page.byteBuffer();
            for (int i = 0; i < 4096; i++)
            {
                source.put(i, (byte)(i * 31));
            }
            for (int i = 0; i < writes; i++)
            {
                own[i] = io.open(dir.resolve("own-" + i), FileMode.DIRECT, true);
                batch.add(own[i], source, 0, 4096, 0);
            }
            batch.add(wrapped, source, 0, 4096, 4096);
            final long pwrites = NativeIo.callCounts().pwrite();
            batch.writeAll();
            assertEquals(1, NativeIo.callCounts().pwrite() - pwrites, "only the wrapped file's write is a pwrite");
            assertEquals(1, wrappedWrites.get());
            for (int i = 0; i <= writes; i++)
            {
                assertNull(batch.failure(i), "write " + i);
            }
            final PageMemory back = PageMemory.allocate(4096, 4096);
            try
            {
                for (int i = 0; i < writes; i++)
                {
                    assertEquals(4096, own[i].read(back.byteBuffer(), 0, 4096, 0));
                    assertArrayEquals(bytes(source), bytes(back.byteBuffer()), "file " + i);
                }
                assertEquals(4096, wrapped.read(back.byteBuffer(), 0, 4096, 4096));
                assertArrayEquals(bytes(source), bytes(back.byteBuffer()));
            }
            finally
            {
                back.free();
            }
        }
        finally
        {
            for (final BlockFile f : own)
            {
                if (f != null)
                {
                    f.close();
                }
            }
            page.free();
        }
    }

    private static byte[] bytes(final ByteBuffer buffer)
    {
        final byte[] out = new byte[4096];
        buffer.get(0, out, 0, 4096);
        return out;
    }
}
