package io.directlog.storage.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

import io.directlog.nativeio.FallocateMode;
import io.directlog.nativeio.NativeFile;
import io.directlog.storage.spi.BlockFile;
import org.agrona.BufferUtil;

/**
 * What every handle on a {@link NativeFile} descriptor does the same way: reads, datasync, allocation, size and
 * truncation go straight to the descriptor, and a buffer is checked before its address is handed to the kernel.
 * Subclasses own how they write and when the descriptor is closed.
 */
abstract class NativeFileHandle implements BlockFile
{
    /** The descriptor, possibly shared with other handles; its closing is the subclass's. */
    final NativeFile file;

    NativeFileHandle(final NativeFile file)
    {
        this.file = file;
    }

    @Override
    public final Path path()
    {
        return file.path();
    }

    @Override
    public final int read(final ByteBuffer target, final int index, final int length, final long position)
        throws IOException
    {
        return (int)file.readFully(address(target, index, length), length, position);
    }

    @Override
    public final void datasync() throws IOException
    {
        file.datasync();
    }

    @Override
    public final void allocate(final long length) throws IOException
    {
        file.fallocate(FallocateMode.DEFAULT, 0, length);
    }

    @Override
    public final long size() throws IOException
    {
        return file.size();
    }

    @Override
    public final void truncate(final long length) throws IOException
    {
        file.truncate(length);
    }

    /**
     * @return the native address of {@code buffer}'s byte {@code index}, once {@code length} bytes from it are known
     * to lie inside a direct buffer: the kernel must never be handed a heap buffer or an address past the end.
     */
    static long address(final ByteBuffer buffer, final int index, final int length)
    {
        if (!buffer.isDirect() || index < 0 || length < 0 || (long)index + length > buffer.capacity())
        {
            throw new IndexOutOfBoundsException("index=" + index + " length=" + length + " outside a " +
                (buffer.isDirect() ? "direct" : "heap") + " buffer of capacity " + buffer.capacity());
        }
        return BufferUtil.address(buffer) + index;
    }
}
