package io.directlog.storage.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import com.sun.nio.file.ExtendedOpenOption;

import io.directlog.storage.buffer.Buffers;
import io.directlog.storage.spi.BlockIo;

/**
 * O_DIRECT through the JDK alone ({@link ExtendedOpenOption#DIRECT}, Linux, JDK 10+), for a JVM the native layer
 * cannot run in silently (started without the options {@code io.directlog.nativeio.JvmOptions} names). It keeps
 * what the design rests on: writes from aligned page memory bypass the page cache into pre-zeroed space, so a
 * completed write changes no metadata, and a DSYNC file is opened with O_DSYNC ({@code StandardOpenOption.DSYNC}),
 * as the native layer opens it.
 * <p>
 * What it lacks against the native layer: no fallocate (a file grows by ftruncate and the preparer's zero-fill
 * allocates its blocks), no shared device flush across logs ({@link #flushDomain} stays null: each log's DSYNC
 * flush is its own O_DSYNC write), no AIO batch, no device facts (the store assumes a volatile write cache), and
 * page memory comes from direct ByteBuffers, given back to the OS at a GC rather than at once.
 * <p>
 * Thread-safe.
 */
public final class JdkDirectBlockIo extends ChannelBlockIo
{
    private static final Set<OpenOption> DIRECT = Set.of(ExtendedOpenOption.DIRECT);

    /**
     * What {@link #probe} found in a directory.
     *
     * @param alignment the alignment direct I/O needs there (at least 4 KiB), when supported.
     * @param whyNot    why O_DIRECT through the JDK is not used there, or null when it is.
     * @param noSpace   true when the probe's write found the filesystem full.
     */
    public record Probe(int alignment, String whyNot, boolean noSpace)
    {
        /** @return true when direct I/O through the JDK works there. */
        public boolean supported()
        {
            return whyNot == null;
        }
    }

    /**
     * @param alignment the alignment of positions, lengths and memory: what {@link #probe} found.
     */
    public JdkDirectBlockIo(final int alignment)
    {
        super(alignment);
    }

    /**
     * Tries a real aligned O_DIRECT write and read-back through the JDK in the directory (a tmpfs, for one, refuses
     * the open), with a file of its own that it deletes.
     *
     * @param directory an existing directory.
     * @return what it found.
     */
    public static Probe probe(final Path directory)
    {
        // the native probe's naming: its scans skip these files, and two stores probing at once never share one
        final Path file = directory.resolve(".directlog-dio-probe-" + ProcessHandle.current().pid() + "-" +
            Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
        try
        {
            final int alignment = Math.max(BlockIo.MIN_BLOCK_ALIGNMENT,
                (int)Math.min(1 << 20, Files.getFileStore(directory).getBlockSize()));
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT))
            {
                final ByteBuffer block = Buffers.allocateDirectAligned(alignment, alignment);
                for (int i = 0; i < alignment; i++)
                {
                    block.put(i, (byte)(i * 31 + 7));
                }
                channel.write(block.duplicate(), 0);
                final ByteBuffer back = Buffers.allocateDirectAligned(alignment, alignment);
                channel.read(back.duplicate(), 0);
                if (!back.equals(block))
                {
                    return new Probe(0, "a block written with O_DIRECT through the JDK read back different", false);
                }
            }
            return new Probe(alignment, null, false);
        }
        catch (final UnsupportedOperationException | IOException e)
        {
            final String why = "O_DIRECT through the JDK failed in " + directory + ": " + e;
            return new Probe(0, why, String.valueOf(e.getMessage()).contains("No space left"));
        }
        finally
        {
            try
            {
                Files.deleteIfExists(file);
            }
            catch (final IOException ignored)
            {
                // nothing to do: the store does not depend on it, and the open that follows reports a broken directory
            }
        }
    }

    @Override
    Set<OpenOption> extraOptions()
    {
        return DIRECT;
    }

    @Override
    public boolean isDirect()
    {
        return true;
    }

    @Override
    public String describe()
    {
        return "O_DIRECT through the JDK's FileChannel (native layer off: JVM started without " +
            "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED or, on JDK 24+, --enable-native-access=ALL-UNNAMED)";
    }
}
