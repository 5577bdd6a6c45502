package io.directlog.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.netty.util.ResourceLeakDetector;

/**
 * A broker process's entry point turns Netty's leak detection off unless the JVM sets a level: a level given with
 * either of Netty's properties stays (the broker's tests run with {@code paranoid}). The level and properties are
 * process-wide, so each test puts back what it found.
 */
class LeakDetectionTest
{
    private ResourceLeakDetector.Level level;
    private final String[] properties = new String[LeakDetection.PROPERTIES.length];

    @BeforeEach
    void remember()
    {
        level = ResourceLeakDetector.getLevel();
        for (int i = 0; i < properties.length; i++)
        {
            properties[i] = System.getProperty(LeakDetection.PROPERTIES[i]);
            System.clearProperty(LeakDetection.PROPERTIES[i]);
        }
    }

    @AfterEach
    void restore()
    {
        for (int i = 0; i < properties.length; i++)
        {
            if (properties[i] == null)
            {
                System.clearProperty(LeakDetection.PROPERTIES[i]);
            }
            else
            {
                System.setProperty(LeakDetection.PROPERTIES[i], properties[i]);
            }
        }
        ResourceLeakDetector.setLevel(level);
    }

    @Test
    void offWhenNoLevelIsConfigured()
    {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
        assertEquals(ResourceLeakDetector.Level.DISABLED, LeakDetection.offUnlessConfigured());
        assertEquals(ResourceLeakDetector.Level.DISABLED, ResourceLeakDetector.getLevel());
    }

    @Test
    void aConfiguredLevelStays()
    {
        for (final String property : LeakDetection.PROPERTIES)
        {
            System.setProperty(property, "paranoid");
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
            assertEquals(ResourceLeakDetector.Level.PARANOID, LeakDetection.offUnlessConfigured(), property);
            System.clearProperty(property);
        }
    }
}
