package io.directlog.benchmarks.raw;

import io.directlog.nativeio.AlignedMemory;
import io.directlog.nativeio.NativeFile;
import io.directlog.nativeio.OpenFlags;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Direct I/O through the project's JNA layer: pwrite/pread on an O_DIRECT (and O_DSYNC) descriptor from
 * posix_memalign'ed memory, exactly the calls the engine makes.
 * <p>
 * Thread-safe for positional I/O (a {@link NativeFile} is).
 */
final class NativeRawFile implements RawFile
{
    private final NativeFile file;

    NativeRawFile(final Path path, final boolean dsync) throws IOException
    {
        int flags = OpenFlags.READ_WRITE | OpenFlags.CREATE | OpenFlags.DIRECT | OpenFlags.CLOEXEC;
        if (dsync)
        {
            flags |= OpenFlags.DSYNC;
        }
        file = NativeFile.open(path, flags);
    }

    @Override
    public Block allocate(final int size)
    {
        final AlignedMemory memory = AlignedMemory.allocate(size, ALIGNMENT);
        return new NativeBlock(memory);
    }

    @Override
    public void write(final Block block, final long position) throws IOException
    {
        final NativeBlock b = (NativeBlock)block;
        file.writeFully(b.memory.address(), b.size(), position);
    }

    @Override
    public void read(final Block block, final long position) throws IOException
    {
        final NativeBlock b = (NativeBlock)block;
        final long read = file.readFully(b.memory.address(), b.size(), position);
        if (read != b.size())
        {
            throw new IOException("short read of " + file.path() + " at " + position + ": " + read + " of " +
                b.size() + " bytes");
        }
    }

    @Override
    public void datasync() throws IOException
    {
        file.datasync();
    }

    @Override
    public void close() throws IOException
    {
        file.close();
    }

    private static final class NativeBlock implements Block
    {
        final AlignedMemory memory;

        NativeBlock(final AlignedMemory memory)
        {
            this.memory = memory;
        }

        @Override
        public ByteBuffer buffer()
        {
            return memory.byteBuffer();
        }

        @Override
        public int size()
        {
            return (int)memory.size();
        }

        @Override
        public void close()
        {
            memory.close();
        }
    }
}
