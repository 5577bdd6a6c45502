package io.directlog.cli.bench;

import java.nio.file.Path;
import java.util.List;

import io.directlog.nativeio.AlignedMemory;
import io.directlog.nativeio.NativeFile;
import io.directlog.nativeio.OpenFlags;

/**
 * {@code raw-direct-4k} and {@code raw-dsync-4k}: one thread overwriting 4 KiB blocks of a pre-zeroed 64 MiB file
 * with O_DIRECT (optionally O_DSYNC), going round the file. What a durable 4 KiB append costs the device when no
 * filesystem metadata changes: the floor for the engine's DIRECT and DSYNC appends.
 * <p>
 * Immutable; {@link #run} is called by one thread at a time.
 */
final class RawOverwriteScenario implements Scenario
{
    static final int BLOCK_BYTES = 4096;
    static final long REGION_BYTES = 64L << 20;

    private final String name;
    private final String summary;
    private final boolean dsync;

    private RawOverwriteScenario(final String name, final String summary, final boolean dsync)
    {
        this.name = name;
        this.summary = summary;
        this.dsync = dsync;
    }

    static RawOverwriteScenario direct()
    {
        return new RawOverwriteScenario("raw-direct-4k",
            "4 KiB O_DIRECT overwrites of a pre-zeroed 64 MiB file (the floor for a DIRECT append)", false);
    }

    static RawOverwriteScenario dsync()
    {
        return new RawOverwriteScenario("raw-dsync-4k",
            "the same through an O_DIRECT|O_DSYNC descriptor (the floor for a DSYNC append)", true);
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public String summary()
    {
        return summary;
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
        context.directIo().requireDirect();
        final int alignment = context.directIo().alignment();
        final Path file = context.scenarioDirectory(name).resolve("overwrite.dat");
        context.progress("pre-zeroing " + (REGION_BYTES >> 20) + " MiB");
        PreZeroedFile.create(file, REGION_BYTES, alignment);

        final int flags = OpenFlags.READ_WRITE | OpenFlags.DIRECT | OpenFlags.CLOEXEC | (dsync ? OpenFlags.DSYNC : 0);
        try (AlignedMemory block = AlignedMemory.allocate(BLOCK_BYTES, alignment);
            NativeFile f = NativeFile.open(file, flags))
        {
            // Not zeros: a device or hypervisor that elides zero writes would flatter the numbers.
            block.buffer().setMemory(0, BLOCK_BYTES, (byte)0x5A);
            final long address = block.address();
            final Measurement m = LoadDriver.closedLoop(context, 1, BLOCK_BYTES, thread ->
            {
                final BlockCycle cycle = new BlockCycle(REGION_BYTES, BLOCK_BYTES);
                return () ->
                {
                    final long position = cycle.nextPosition();
                    final long start = System.nanoTime();
                    f.writeFully(address, BLOCK_BYTES, position);
                    return System.nanoTime() - start;
                };
            });
            rows.add(1, m, null);
        }
    }
}
