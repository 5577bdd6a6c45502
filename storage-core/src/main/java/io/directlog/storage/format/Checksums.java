package io.directlog.storage.format;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

import org.agrona.DirectBuffer;

/**
 * CRC32C (java.util.zip.CRC32C, an intrinsic on x86-64 and aarch64) over ranges of buffers.
 * <p>
 * Thread-safe: each thread reuses its own CRC32C and, per backing ByteBuffer, a duplicate view, so the hot
 * path allocates nothing once warm.
 */
public final class Checksums
{
    private static final ThreadLocal<Calculator> SCRATCH = ThreadLocal.withInitial(Calculator::new);

    private Checksums()
    {
    }

    /**
     * @param buffer a buffer wrapping a direct ByteBuffer or a byte array.
     * @param index  the first byte.
     * @param length how many bytes.
     * @return the CRC32C of those bytes.
     */
    public static int crc32c(final DirectBuffer buffer, final int index, final int length)
    {
        return SCRATCH.get().crc32c(buffer, index, length);
    }

    /**
     * A CRC32C calculator that one thread keeps: the writer computes one per record, and a ThreadLocal lookup
     * per call cost as much as the checksum of a small record.
     * <p>
     * Not thread-safe.
     */
    public static final class Calculator
    {
        private final CRC32C crc = new CRC32C();
        private ByteBuffer source;
        private ByteBuffer view;

        /**
         * @param buffer a buffer wrapping a direct ByteBuffer or a byte array.
         * @param index  the first byte.
         * @param length how many bytes.
         * @return the CRC32C of those bytes.
         */
        public int crc32c(final DirectBuffer buffer, final int index, final int length)
        {
            crc.reset();
            final ByteBuffer bb = buffer.byteBuffer();
            if (bb != null)
            {
                final ByteBuffer v = view(bb);
                final int base = buffer.wrapAdjustment(); // where the buffer starts in bb
                v.limit(base + index + length).position(base + index);
                crc.update(v);
            }
            else
            {
                final byte[] array = buffer.byteArray();
                if (array != null)
                {
                    final int base = buffer.wrapAdjustment();
                    crc.update(array, base + index, length);
                }
                else
                {
                    for (int i = 0; i < length; i++)
                    {
                        crc.update(buffer.getByte(index + i));
                    }
                }
            }
            return (int)crc.getValue();
        }

        private ByteBuffer view(final ByteBuffer bb)
        {
            if (bb != source)
            {
                source = bb;
                view = bb.duplicate();
            }
            view.clear();
            return view;
        }
    }
}
