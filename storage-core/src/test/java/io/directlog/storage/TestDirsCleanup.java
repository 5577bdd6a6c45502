package io.directlog.storage;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Deletes the directories a test class made through {@link TestDirs} when the class ends, unless one of its tests
 * failed: then they stay, and their paths are printed. Registered for every test class of this module by JUnit's
 * extension auto-detection ({@code junit-platform.properties} and {@code META-INF/services}), so no test has to
 * remember it.
 * <p>
 * Relies on test classes running one after another in the JVM (the build runs no JUnit parallel execution): the
 * directories made since the previous class ended belong to this one. Not thread-safe otherwise.
 */
public final class TestDirsCleanup implements AfterAllCallback, TestWatcher
{
    private static volatile boolean failed;

    /** Made by JUnit's auto-detection. */
    public TestDirsCleanup()
    {
    }

    @Override
    public void testFailed(final ExtensionContext context, final Throwable cause)
    {
        failed = true;
    }

    @Override
    public void afterAll(final ExtensionContext context)
    {
        if (context.getParent().flatMap(ExtensionContext::getParent).isPresent())
        {
            return; // a nested class: its enclosing class cleans up
        }
        final List<Path> dirs = TestDirs.takeCreated();
        final boolean keep = failed || context.getExecutionException().isPresent();
        failed = false;
        if (keep)
        {
            if (!dirs.isEmpty())
            {
                System.err.println(context.getDisplayName() + " failed: its test directories are kept: " + dirs);
            }
            return;
        }
        dirs.forEach(TestDirs::deleteQuietly);
    }
}
