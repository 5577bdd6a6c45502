package io.directlog.storage.io;

import java.nio.file.OpenOption;
import java.util.Set;

/**
 * The fallback where O_DIRECT is unavailable (switched off, an unsupported OS, a filesystem that refuses O_DIRECT):
 * buffered FileChannel I/O. {@link #isDirect()} is false, which tells the engine to follow every write that
 * acknowledges DIRECT or DSYNC appends with fdatasync, so each mode keeps its promise at the price of a
 * journal-free but cache-flushing sync per group commit.
 * <p>
 * Thread-safe.
 */
public final class BufferedBlockIo extends ChannelBlockIo
{
    /**
     * @param alignment the block size the engine aligns to anyway (4096).
     */
    public BufferedBlockIo(final int alignment)
    {
        super(alignment);
    }

    @Override
    Set<OpenOption> extraOptions()
    {
        return Set.of();
    }

    @Override
    public boolean isDirect()
    {
        return false;
    }

    @Override
    public String describe()
    {
        return "buffered FileChannel with fdatasync per durable flush (O_DIRECT unavailable)";
    }
}
