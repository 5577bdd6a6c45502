package io.directlog.storage.io;

import io.directlog.storage.spi.BlockIo;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Path;

import io.directlog.nativeio.DirectIoProbe;
import io.directlog.nativeio.NativeIo;
import io.directlog.storage.TestDirs;

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
}
