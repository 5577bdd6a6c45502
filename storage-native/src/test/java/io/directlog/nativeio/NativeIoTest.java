package io.directlog.nativeio;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class NativeIoTest
{
    @Test
    void availableOnLinuxX8664AndAarch64()
    {
        assumeTrue(Platform.CURRENT != Platform.UNSUPPORTED, "not Linux x86-64/aarch64");
        assertTrue(NativeIo.isAvailable(), () -> String.valueOf(NativeIo.unavailabilityCause()));
        assertNull(NativeIo.unavailabilityCause());
        NativeIo.ensureAvailable();
    }

    @Test
    void disablePropertyMakesTheLayerUnavailable()
    {
        final Throwable cause = NativeIo.probe("Linux", "amd64", "true", () ->
        {
            throw new AssertionError("loader must not run when disabled");
        });
        assertTrue(cause.getMessage().contains(NativeIo.DISABLE_PROP_NAME), cause::getMessage);
    }

    @Test
    void otherPlatformsAreUnavailableWithoutLoadingAnything()
    {
        final Runnable mustNotLoad = () ->
        {
            throw new AssertionError("loader must not run on an unsupported platform");
        };
        assertTrue(NativeIo.probe("Mac OS X", "aarch64", null, mustNotLoad).getMessage()
            .contains("unsupported platform Mac OS X/aarch64"));
        assertTrue(NativeIo.probe("Linux", "riscv64", null, mustNotLoad).getMessage()
            .contains("unsupported platform Linux/riscv64"));
        assertTrue(NativeIo.probe("Windows 11", "amd64", "false", mustNotLoad) != null);
    }

    @Test
    void linkFailureIsKeptAsTheCauseAndBecomesUnsupportedOperation()
    {
        final UnsatisfiedLinkError linkError = new UnsatisfiedLinkError("libc.so.6: cannot open");
        final Throwable cause = NativeIo.probe("Linux", "aarch64", null, () ->
        {
            throw linkError;
        });
        assertSame(linkError, cause);

        final UnsupportedOperationException ex = NativeIo.unavailable(cause);
        assertTrue(ex.getMessage().startsWith("native I/O unavailable: "), ex::getMessage);
        assertTrue(ex.getMessage().contains("libc.so.6: cannot open"), ex::getMessage);
        assertSame(linkError, ex.getCause());
    }

    @Test
    void successfulLoaderMeansAvailable()
    {
        assertNull(NativeIo.probe("Linux", "x86_64", "false", () -> { }));
    }

    @Test
    void platformDetection()
    {
        assertEquals(Platform.X86_64, Platform.detect("Linux", "amd64"));
        assertEquals(Platform.AARCH64, Platform.detect("Linux", "aarch64"));
        assertEquals(Platform.UNSUPPORTED, Platform.detect("Linux", "arm"));
        assertEquals(Platform.UNSUPPORTED, Platform.detect("FreeBSD", "amd64"));
    }

    @Test
    void openFlagsHaveThePlatformValues()
    {
        assumeTrue(Platform.CURRENT != Platform.UNSUPPORTED, "not Linux x86-64/aarch64");
        assertEquals(Platform.isAarch64() ? 0x10000 : 0x4000, OpenFlags.DIRECT);
        assertEquals(Platform.isAarch64() ? 0x4000 : 0x10000, OpenFlags.DIRECTORY);
        assertEquals(0x1000, OpenFlags.DSYNC);
        assertEquals(0x101000, OpenFlags.SYNC);
        assertEquals(0x80000, OpenFlags.CLOEXEC);
        assertEquals(0x40, OpenFlags.CREATE);
    }

    @Test
    void errnoNamesAndDescriptions()
    {
        assertEquals("EINVAL", Errno.name(Errno.EINVAL));
        assertEquals("Invalid argument", Errno.describe(Errno.EINVAL));
        assertEquals("EDQUOT", Errno.name(122));
        assertEquals("EOPNOTSUPP", Errno.name(95));
        assertEquals("ERRNO_999", Errno.name(999));
        assertEquals("ERRNO_-1", Errno.name(-1));
        assertEquals("Unknown error 999", Errno.describe(999));
    }

    @Test
    void errnoOutsideTheTableIsDescribedByStrerror()
    {
        NativeTestSupport.assumeNative();
        // ENOLINK (67) is not in the table; glibc knows it.
        assertEquals("ERRNO_67", Errno.name(67));
        assertTrue(!Errno.describe(67).startsWith("Unknown error"), () -> Errno.describe(67));
    }

    @Test
    void deviceNumbersRoundTripThroughGlibcEncoding()
    {
        for (final int[] mm : new int[][] {{8, 1}, {254, 0}, {259, 65536}, {4095, 255}, {0x12345, 0x6789A}})
        {
            final long dev = Statx.makedev(mm[0], mm[1]);
            assertEquals(mm[0], BlockDeviceInfo.major(dev));
            assertEquals(mm[1], BlockDeviceInfo.minor(dev));
        }
        assertEquals(0x801L, Statx.makedev(8, 1));
    }

    @Test
    void nativeMemoryExceptionIsUnchecked()
    {
        assertInstanceOf(RuntimeException.class, new NativeMemoryException("x", Errno.ENOMEM));
    }
}
