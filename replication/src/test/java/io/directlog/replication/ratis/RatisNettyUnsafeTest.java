package io.directlog.replication.ratis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Ratis's shaded Netty is kept off sun.misc.Unsafe only where the JDK would warn about it (24+), and never against
 * a value the application set. The warning itself (and its absence with the property) was checked by hand with
 * {@code ./directlog cluster} on Temurin 25: see docs/config.md, "JVM options".
 */
class RatisNettyUnsafeTest
{
    private String saved;

    @BeforeEach
    void clear()
    {
        saved = System.clearProperty(RatisNettyUnsafe.NO_UNSAFE_PROP_NAME);
    }

    @AfterEach
    void restore()
    {
        System.clearProperty(RatisNettyUnsafe.NO_UNSAFE_PROP_NAME);
        if (saved != null)
        {
            System.setProperty(RatisNettyUnsafe.NO_UNSAFE_PROP_NAME, saved);
        }
    }

    @Test
    void onJdk24AndLaterUnsafeIsTurnedOff()
    {
        RatisNettyUnsafe.avoidOnWarningJdks(25);
        assertEquals("true", System.getProperty(RatisNettyUnsafe.NO_UNSAFE_PROP_NAME));
    }

    @Test
    void beforeJdk24NothingChanges()
    {
        RatisNettyUnsafe.avoidOnWarningJdks(17);
        assertNull(System.getProperty(RatisNettyUnsafe.NO_UNSAFE_PROP_NAME));
    }

    @Test
    void aValueTheApplicationSetIsKept()
    {
        System.setProperty(RatisNettyUnsafe.NO_UNSAFE_PROP_NAME, "false");
        RatisNettyUnsafe.avoidOnWarningJdks(25);
        assertEquals("false", System.getProperty(RatisNettyUnsafe.NO_UNSAFE_PROP_NAME));
    }
}
