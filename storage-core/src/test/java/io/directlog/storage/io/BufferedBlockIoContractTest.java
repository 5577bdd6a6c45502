package io.directlog.storage.io;

import io.directlog.storage.spi.BlockIo;
import java.io.IOException;
import java.nio.file.Path;

import io.directlog.storage.TestDirs;

/** The buffered fallback (O_DIRECT unavailable) against the {@link BlockIoContract}. */
class BufferedBlockIoContractTest extends BlockIoContract
{
    @Override
    BlockIo newIo()
    {
        return new BufferedBlockIo(BlockIo.MIN_BLOCK_ALIGNMENT);
    }

    @Override
    Path newDirectory() throws IOException
    {
        return TestDirs.create("buffered-io");
    }
}
