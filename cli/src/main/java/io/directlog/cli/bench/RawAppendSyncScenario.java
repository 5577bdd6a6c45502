package io.directlog.cli.bench;

import java.nio.file.Path;
import java.util.List;

import io.directlog.nativeio.AlignedMemory;
import io.directlog.nativeio.NativeFile;
import io.directlog.nativeio.OpenFlags;

/**
 * {@code raw-append-fdatasync-4k}: the textbook durable log. Buffered 4 KiB appends to a growing file, each
 * followed by fdatasync, which must also commit the new file size through the filesystem journal. The cost the
 * engine's pre-zeroed segments avoid.
 * <p>
 * Immutable; {@link #run} is called by one thread at a time.
 */
final class RawAppendSyncScenario implements Scenario
{
    static final int BLOCK_BYTES = 4096;

    @Override
    public String name()
    {
        return "raw-append-fdatasync-4k";
    }

    @Override
    public String summary()
    {
        return "buffered 4 KiB appends to a growing file, fdatasync after each (the textbook durable log)";
    }

    @Override
    public int recordBytes()
    {
        return BLOCK_BYTES;
    }

    @Override
    public List<Integer> threadCounts()
    {
        return List.of(1);
    }

    @Override
    public void run(final BenchContext context, final RowSink rows) throws Exception
    {
        context.directIo().requireNative();
        final Path file = context.scenarioDirectory(name()).resolve("append.dat");
        final int flags = OpenFlags.WRITE_ONLY | OpenFlags.CREATE | OpenFlags.TRUNCATE | OpenFlags.CLOEXEC;
        try (AlignedMemory block = AlignedMemory.allocate(BLOCK_BYTES, DirectIoSupport.MIN_ALIGNMENT);
            NativeFile f = NativeFile.open(file, flags, PreZeroedFile.FILE_MODE))
        {
            block.buffer().setMemory(0, BLOCK_BYTES, (byte)0x5A);
            final long address = block.address();
            final Measurement m = LoadDriver.closedLoop(context, 1, BLOCK_BYTES, thread ->
            {
                final long[] end = {0};
                return () ->
                {
                    final long start = System.nanoTime();
                    f.writeFully(address, BLOCK_BYTES, end[0]);
                    f.datasync();
                    end[0] += BLOCK_BYTES;
                    return System.nanoTime() - start;
                };
            });
            rows.add(1, m, null);
        }
    }
}
