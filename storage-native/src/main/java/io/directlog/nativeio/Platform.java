package io.directlog.nativeio;

import java.util.Locale;

/**
 * The one place where the operating system and CPU are recognised. Linux on x86-64 and aarch64 share the
 * asm-generic errno numbers, fadvise values, ioctl encoding and 64-bit {@code struct statfs} layout; they differ in
 * a few {@code open(2)} flags (O_DIRECT, O_DIRECTORY, O_NOFOLLOW), which {@link OpenFlags} takes from here.
 *
 * <p>Stateless; thread-safe.
 */
final class Platform
{
    /** Linux on x86-64. */
    static final int X86_64 = 1;
    /** Linux on aarch64. */
    static final int AARCH64 = 2;
    /** Anything else: the native layer is unavailable. */
    static final int UNSUPPORTED = 0;

    static final int CURRENT = detect(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));

    private Platform()
    {
    }

    static int detect(final String osName, final String osArch)
    {
        if (!osName.toLowerCase(Locale.ROOT).startsWith("linux"))
        {
            return UNSUPPORTED;
        }
        switch (osArch.toLowerCase(Locale.ROOT))
        {
            case "amd64":
            case "x86_64":
                return X86_64;
            case "aarch64":
            case "arm64":
                return AARCH64;
            default:
                return UNSUPPORTED;
        }
    }

    static boolean isAarch64()
    {
        return CURRENT == AARCH64;
    }
}
