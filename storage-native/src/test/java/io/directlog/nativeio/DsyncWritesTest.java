package io.directlog.nativeio;

import static io.directlog.nativeio.NativeTestSupport.assumeDirectIo;
import static io.directlog.nativeio.NativeTestSupport.assumeNative;
import static io.directlog.nativeio.NativeTestSupport.fill;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** pwritev2(RWF_DSYNC) through an O_DIRECT descriptor opened without O_DSYNC. */
class DsyncWritesTest
{
    private static final int DIRECT_RW = OpenFlags.READ_WRITE | OpenFlags.CREATE | OpenFlags.DIRECT | OpenFlags.CLOEXEC;

    private Path dir;

    @BeforeEach
    void setUp()
    {
        assumeNative();
        dir = NativeTestSupport.newDir("dsync-writes");
    }

    @AfterEach
    void tearDown()
    {
        NativeTestSupport.deleteTree(dir);
    }

    @Test
    void isSupportedOnLinux47AndLater()
    {
        final String[] version = System.getProperty("os.version").split("[.-]");
        final int major = Integer.parseInt(version[0]);
        final int minor = Integer.parseInt(version[1]);
        if (major > 4 || major == 4 && minor >= 7)
        {
            assertTrue(DsyncWrites.isSupported(), "pwritev2 RWF_DSYNC on Linux " + System.getProperty("os.version"));
        }
    }

    @Test
    void dsyncWriteThenReadReturnsTheSameBytes() throws Exception
    {
        assumeDirectIo(dir);
        org.junit.jupiter.api.Assumptions.assumeTrue(DsyncWrites.isSupported(), "pwritev2 RWF_DSYNC unsupported");
        try (NativeFile file = NativeFile.open(dir.resolve("f.dat"), DIRECT_RW);
            AlignedMemory out = AlignedMemory.allocate(8192, 4096);
            AlignedMemory in = AlignedMemory.allocate(8192, 4096))
        {
            fill(out, 7);
            file.writeDsyncFully(out.address(), out.size(), 4096);
            assertEquals(8192, file.readFully(in.address(), in.size(), 4096));
            assertEquals(out.buffer().getLong(0), in.buffer().getLong(0));
            assertEquals(out.buffer().getLong(8184), in.buffer().getLong(8184));
            assertEquals(12288, file.size());
        }
    }

    @Test
    void misalignedDsyncWriteFailsWithEinvalAndStaysSupported() throws Exception
    {
        assumeDirectIo(dir);
        org.junit.jupiter.api.Assumptions.assumeTrue(DsyncWrites.isSupported(), "pwritev2 RWF_DSYNC unsupported");
        try (NativeFile file = NativeFile.open(dir.resolve("m.dat"), DIRECT_RW);
            AlignedMemory memory = AlignedMemory.allocate(8192, 4096))
        {
            final NativeIoException e =
                assertThrows(NativeIoException.class, () -> file.writeDsyncFully(memory.address(), 100, 0));
            assertEquals("pwritev2", e.call());
            assertEquals(Errno.EINVAL, e.errno());
            assertTrue(DsyncWrites.isSupported(), "EINVAL is the caller's alignment, not a missing flag");
        }
    }
}
