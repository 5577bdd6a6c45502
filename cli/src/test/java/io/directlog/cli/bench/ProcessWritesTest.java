package io.directlog.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class ProcessWritesTest
{
    @Test
    void readsWriteBytesOfAProcIoFile()
    {
        assertEquals(123_456_789L, ProcessWrites.parse(List.of("rchar: 10", "wchar: 20", "syscr: 1", "syscw: 2",
            "read_bytes: 4096", "write_bytes: 123456789", "cancelled_write_bytes: 0")));
    }

    @Test
    void saysMinusOneWhenTheFieldIsMissingOrMalformed()
    {
        assertEquals(-1, ProcessWrites.parse(List.of("rchar: 10")));
        assertEquals(-1, ProcessWrites.parse(List.of("write_bytes: lots")));
    }

    @Test
    void thisProcessCountIsReadableOrMinusOne()
    {
        final long written = ProcessWrites.bytesWritten();
        assertTrue(written >= -1, "write_bytes " + written);
    }
}
