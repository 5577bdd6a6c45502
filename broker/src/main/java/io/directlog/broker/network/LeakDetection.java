package io.directlog.broker.network;

import io.netty.util.ResourceLeakDetector;

/**
 * The broker process's Netty buffer leak detection: off unless the JVM was started with Netty's own property
 * ({@code -Dio.netty.leakDetection.level=...}, which always wins; the broker's tests run with {@code paranoid}).
 * <p>
 * Netty's default level samples about one buffer in 128 and records a stack trace for each sampled one where it is
 * created, touched and released: at 60,000 records/s the event loops spent about 2% of their CPU filling in those
 * stack traces (perf, issue 21), to report a leak that the tests already look for at every allocation.
 * <p>
 * Process-wide (Netty keeps the level in a static), so only a process's entry point applies it, never the broker
 * embedded in someone else's JVM.
 */
public final class LeakDetection
{
    /** Netty's property for the level, and its older spelling. */
    static final String[] PROPERTIES = {"io.netty.leakDetection.level", "io.netty.leakDetectionLevel"};

    private LeakDetection()
    {
    }

    /**
     * Turns leak detection off unless one of Netty's properties sets a level.
     *
     * @return the level in force afterwards.
     */
    public static ResourceLeakDetector.Level offUnlessConfigured()
    {
        for (final String p : PROPERTIES)
        {
            if (System.getProperty(p) != null)
            {
                return ResourceLeakDetector.getLevel();
            }
        }
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        return ResourceLeakDetector.getLevel();
    }
}
