package io.directlog.cli.bench;

import java.nio.file.Path;
import java.util.List;

import io.directlog.nativeio.AlignedMemory;
import io.directlog.nativeio.NativeFile;
import io.directlog.nativeio.OpenFlags;

/**
 * {@code raw-seq-read-1m}: one thread reading the 256 MiB file in 1 MiB O_DIRECT blocks, in order, round and
 * round. O_DIRECT bypasses the page cache, so this is the device: the ceiling for engine-cold-read.
 * <p>
 * Immutable; {@link #run} is called by one thread at a time.
 */
final class RawSequentialReadScenario implements Scenario
{
    @Override
    public String name()
    {
        return "raw-seq-read-1m";
    }

    @Override
    public String summary()
    {
        return "1 MiB O_DIRECT sequential reads of that file (read bandwidth)";
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
        try (AlignedMemory block = AlignedMemory.allocate(SequentialFile.BLOCK_BYTES, context.directIo().alignment());
            NativeFile f = NativeFile.open(file, OpenFlags.READ_ONLY | OpenFlags.DIRECT | OpenFlags.CLOEXEC))
        {
            final long address = block.address();
            final Measurement m = LoadDriver.closedLoop(context, 1, SequentialFile.BLOCK_BYTES, thread ->
            {
                final BlockCycle cycle = new BlockCycle(SequentialFile.SIZE_BYTES, SequentialFile.BLOCK_BYTES);
                return () ->
                {
                    final long position = cycle.nextPosition();
                    final long start = System.nanoTime();
                    f.readFully(address, SequentialFile.BLOCK_BYTES, position);
                    return System.nanoTime() - start;
                };
            });
            rows.add(1, m, null);
        }
    }
}
