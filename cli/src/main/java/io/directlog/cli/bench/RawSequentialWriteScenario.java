package io.directlog.cli.bench;

import java.nio.file.Path;
import java.util.List;

import io.directlog.nativeio.AlignedMemory;
import io.directlog.nativeio.NativeFile;
import io.directlog.nativeio.OpenFlags;

/**
 * {@code raw-seq-1m}: one thread writing 1 MiB O_DIRECT blocks in order over the pre-zeroed 256 MiB file, round
 * and round: the device's sequential write bandwidth, which caps the engine under load.
 * <p>
 * Immutable; {@link #run} is called by one thread at a time.
 */
final class RawSequentialWriteScenario implements Scenario
{
    @Override
    public String name()
    {
        return "raw-seq-1m";
    }

    @Override
    public String summary()
    {
        return "1 MiB O_DIRECT sequential writes over a pre-zeroed 256 MiB file (write bandwidth)";
    }

    @Override
    public int recordBytes()
    {
        return SequentialFile.BLOCK_BYTES;
    }

    @Override
    public List<Integer> threadCounts()
    {
        return List.of(1);
    }

    @Override
    public void run(final BenchContext context, final RowSink rows) throws Exception
    {
        context.directIo().requireDirect();
        final Path file = SequentialFile.ensure(context);
        final int flags = OpenFlags.READ_WRITE | OpenFlags.DIRECT | OpenFlags.CLOEXEC;
        try (AlignedMemory block = AlignedMemory.allocate(SequentialFile.BLOCK_BYTES, context.directIo().alignment());
            NativeFile f = NativeFile.open(file, flags))
        {
            block.buffer().setMemory(0, SequentialFile.BLOCK_BYTES, (byte)0x5A);
            final long address = block.address();
            final Measurement m = LoadDriver.closedLoop(context, 1, SequentialFile.BLOCK_BYTES, thread ->
            {
                final BlockCycle cycle = new BlockCycle(SequentialFile.SIZE_BYTES, SequentialFile.BLOCK_BYTES);
                return () ->
                {
                    final long position = cycle.nextPosition();
                    final long start = System.nanoTime();
                    f.writeFully(address, SequentialFile.BLOCK_BYTES, position);
                    return System.nanoTime() - start;
                };
            });
            rows.add(1, m, null);
        }
    }
}
