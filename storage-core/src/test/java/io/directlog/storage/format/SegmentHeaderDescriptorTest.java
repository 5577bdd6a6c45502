package io.directlog.storage.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/** Version 3 headers carry flags under their CRC; version 2 headers (no flags) are still read. */
class SegmentHeaderDescriptorTest
{
    private static UnsafeBuffer block()
    {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(SegmentHeaderDescriptor.LENGTH));
    }

    @Test
    void aVersion3HeaderKeepsItsFlags()
    {
        final UnsafeBuffer b = block();
        SegmentHeaderDescriptor.write(b, 77, 1000, 5, 1 << 20, 4096, 123, SegmentHeaderDescriptor.FLAG_RECYCLED);
        assertNull(SegmentHeaderDescriptor.validate(b));
        assertEquals(SegmentHeaderDescriptor.FLAG_RECYCLED, SegmentHeaderDescriptor.flags(b));
        b.putInt(SegmentHeaderDescriptor.FLAGS_OFFSET, 0);
        assertEquals("header CRC mismatch", SegmentHeaderDescriptor.validate(b), "the flags are under the CRC");
    }

    @Test
    void aVersion2HeaderIsReadWithNoFlags()
    {
        final UnsafeBuffer b = block();
        SegmentHeaderDescriptor.write(b, 77, 1000, 5, 1 << 20, 4096, 123, 0);
        b.putInt(SegmentHeaderDescriptor.VERSION_OFFSET, SegmentHeaderDescriptor.VERSION_2);
        b.putLong(SegmentHeaderDescriptor.FLAGS_OFFSET, 0); // version 2: the CRC at 56, zeros after it
        b.putInt(SegmentHeaderDescriptor.CRC_OFFSET_V2, Checksums.crc32c(b, 0, SegmentHeaderDescriptor.CRC_OFFSET_V2));
        assertNull(SegmentHeaderDescriptor.validate(b));
        assertEquals(0, SegmentHeaderDescriptor.flags(b));
        assertEquals(1000, b.getLong(SegmentHeaderDescriptor.BASE_OFFSET_OFFSET));
    }

    @Test
    void unknownFlagsAndVersionsAreRefused()
    {
        final UnsafeBuffer b = block();
        final int known = SegmentHeaderDescriptor.FLAG_RECYCLED | SegmentHeaderDescriptor.FLAG_WRITE_MARKS |
            SegmentHeaderDescriptor.FLAG_ZERO_AHEAD;
        SegmentHeaderDescriptor.write(b, 77, 1000, 5, 1 << 20, 4096, 123, known);
        assertEquals(null, SegmentHeaderDescriptor.validate(b), "a recycled segment's flags as this build writes them");
        SegmentHeaderDescriptor.write(b, 77, 1000, 5, 1 << 20, 4096, 123, known | 16);
        assertTrue(SegmentHeaderDescriptor.validate(b).startsWith("unknown flags"), SegmentHeaderDescriptor.validate(b));
        SegmentHeaderDescriptor.write(b, 77, 1000, 5, 1 << 20, 4096, 123, 0);
        b.putInt(SegmentHeaderDescriptor.VERSION_OFFSET, 4);
        b.putInt(SegmentHeaderDescriptor.CRC_OFFSET, Checksums.crc32c(b, 0, SegmentHeaderDescriptor.CRC_OFFSET));
        assertEquals("unsupported format version 4", SegmentHeaderDescriptor.validate(b));
    }
}
