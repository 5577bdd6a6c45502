package io.directlog.replication.ratis;

/**
 * Keeps the copy of Netty that Ratis shades ({@code org.apache.ratis.thirdparty.io.netty}) away from
 * {@code sun.misc.Unsafe} on JDK 24 and later, where its first {@code Unsafe.allocateMemory} makes the JDK print
 * four lines of JEP 498 warning on stderr ("A terminally deprecated method in sun.misc.Unsafe has been called ...
 * by org.apache.ratis.thirdparty.io.netty.util.internal.PlatformDependent0$2"). The broker's own Netty 4.2 makes
 * the same choice by itself on those JDKs; the shaded 4.1 copy needs its {@code noUnsafe} property, read once when
 * its {@code PlatformDependent0} loads, so this runs before the first Ratis server is built.
 * <p>
 * A property the application set (to either value) is left alone: {@code -Dorg.apache.ratis.thirdparty.io.netty
 * .noUnsafe=false} with {@code --sun-misc-unsafe-memory-access=allow} keeps Unsafe without the warning. Before JDK
 * 24 nothing is printed, and nothing is changed. Thread-safe (a system property, set at most once per JVM).
 */
final class RatisNettyUnsafe
{
    /** Ratis's relocated name of Netty's {@code io.netty.noUnsafe}. */
    static final String NO_UNSAFE_PROP_NAME = "org.apache.ratis.thirdparty.io.netty.noUnsafe";

    /** The first JDK that warns when a {@code sun.misc.Unsafe} memory-access method is used (JEP 498). */
    private static final int FIRST_WARNING_JDK = 24;

    private RatisNettyUnsafe()
    {
    }

    /** Turns Unsafe off for Ratis's Netty on JDK 24+, unless the application chose for itself. */
    static void avoidOnWarningJdks()
    {
        avoidOnWarningJdks(Runtime.version().feature());
    }

    /** @param jdkFeature the running JDK's feature release (17, 25, ...); a parameter so tests cover both sides. */
    static void avoidOnWarningJdks(final int jdkFeature)
    {
        if (jdkFeature >= FIRST_WARNING_JDK && System.getProperty(NO_UNSAFE_PROP_NAME) == null)
        {
            System.setProperty(NO_UNSAFE_PROP_NAME, "true");
        }
    }
}
