package io.directlog.storage;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * The one seed of a test run: every test that draws random numbers starts from {@link #seed()}, so any failure can
 * be replayed with {@code -Ddirectlog.test.seed=<n>} (one property for the whole build, as Aeron's
 * {@code RandomWatcher} does for its tests). The seed is fixed once per test JVM; a test that wants its own stream
 * mixes it with a constant of its own ({@code seed() ^ name.hashCode()}), never with the clock.
 * <p>
 * Registered on a test class with {@code @ExtendWith(TestSeed.class)}: it prints the seed before the class runs
 * and, for every failed test, the line that replays it.
 * <p>
 * Thread-safe: the seed is immutable.
 */
public final class TestSeed implements BeforeAllCallback, TestWatcher
{
    /** The system property that replays a run. */
    public static final String SEED_PROP_NAME = "directlog.test.seed";

    private static final long SEED = Long.getLong(SEED_PROP_NAME, System.nanoTime());

    /**
     * @return the seed of this test run: {@code -Ddirectlog.test.seed} when given, else one drawn once per JVM.
     */
    public static long seed()
    {
        return SEED;
    }

    /**
     * @return the option that replays this run, for messages.
     */
    public static String replayOption()
    {
        return "-D" + SEED_PROP_NAME + "=" + SEED;
    }

    @Override
    public void beforeAll(final ExtensionContext context)
    {
        System.out.println(context.getDisplayName() + ": seed " + SEED + " (replay with " + replayOption() + ")");
    }

    @Override
    public void testFailed(final ExtensionContext context, final Throwable cause)
    {
        System.err.println(context.getRequiredTestClass().getSimpleName() + "." + context.getDisplayName() +
            " failed with seed " + SEED + ": replay with -Dtest=" + context.getRequiredTestClass().getSimpleName() +
            " " + replayOption());
    }
}
