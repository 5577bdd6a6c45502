package io.directlog.benchmarks.raw;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;

/**
 * Direct I/O through the JDK: {@code FileChannel} opened with {@code ExtendedOpenOption.DIRECT} (O_DIRECT) and
 * {@code StandardOpenOption.DSYNC} (O_DSYNC), writing from an aligned slice of a direct buffer.
 * <p>
 * Design note: {@code ExtendedOpenOption} is looked up reflectively. It lives in {@code jdk.unsupported}, and
 * from JDK 21 on javac warns about every use of it ("internal proprietary API") with a warning no
 * {@code @SuppressWarnings} can silence, which {@code -Werror} turns into a failed build.
 * <p>
 * Thread-safe for positional I/O (a {@link FileChannel} is).
 */
final class JdkRawFile implements RawFile
{
    private static final OpenOption DIRECT = directOption();

    private final FileChannel channel;

    JdkRawFile(final Path path, final boolean dsync) throws IOException
    {
        final Set<OpenOption> options = new HashSet<>();
        options.add(StandardOpenOption.CREATE);
        options.add(StandardOpenOption.READ);
        options.add(StandardOpenOption.WRITE);
        options.add(DIRECT);
        if (dsync)
        {
            options.add(StandardOpenOption.DSYNC);
        }
        channel = FileChannel.open(path, options);
    }

    private static OpenOption directOption()
    {
        try
        {
            return (OpenOption)Class.forName("com.sun.nio.file.ExtendedOpenOption").getField("DIRECT").get(null);
        }
        catch (final ReflectiveOperationException | LinkageError ex)
        {
            throw new ExceptionInInitializerError("O_DIRECT through the JDK needs " +
                "com.sun.nio.file.ExtendedOpenOption.DIRECT (module jdk.unsupported): " + ex);
        }
    }

    @Override
    public Block allocate(final int size)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(size + ALIGNMENT).alignedSlice(ALIGNMENT);
        buffer.limit(size);
        return new JdkBlock(buffer.slice());
    }

    @Override
    public void write(final Block block, final long position) throws IOException
    {
        final ByteBuffer buffer = ((JdkBlock)block).buffer;
        buffer.clear();
        long pos = position;
        while (buffer.hasRemaining())
        {
            pos += channel.write(buffer, pos);
        }
    }

    @Override
    public void read(final Block block, final long position) throws IOException
    {
        final ByteBuffer buffer = ((JdkBlock)block).buffer;
        buffer.clear();
        long pos = position;
        while (buffer.hasRemaining())
        {
            final int n = channel.read(buffer, pos);
            if (n <= 0)
            {
                throw new IOException("short read at " + pos + ": " + buffer.position() + " of " +
                    buffer.capacity() + " bytes");
            }
            pos += n;
        }
    }

    @Override
    public void datasync() throws IOException
    {
        channel.force(false);
    }

    @Override
    public void close() throws IOException
    {
        channel.close();
    }

    private static final class JdkBlock implements Block
    {
        final ByteBuffer buffer;

        JdkBlock(final ByteBuffer buffer)
        {
            this.buffer = buffer;
        }

        @Override
        public ByteBuffer buffer()
        {
            return buffer.duplicate().clear();
        }

        @Override
        public int size()
        {
            return buffer.capacity();
        }

        @Override
        public void close()
        {
            // freed by the GC with its buffer
        }
    }
}
