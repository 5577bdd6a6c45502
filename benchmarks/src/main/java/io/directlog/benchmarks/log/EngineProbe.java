package io.directlog.benchmarks.log;

import io.directlog.benchmarks.BenchDirs;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;
import java.nio.file.Path;

/**
 * Whether the engine can run here yet: while {@code storage-core} is a skeleton, {@code LogStore.open} throws
 * {@code UnsupportedOperationException("the engine is not built yet: ...")}, and the smoke test skips exactly the
 * engine suites on that answer. Any other failure is a real failure and is not hidden.
 * <p>
 * Thread-safe (stateless).
 */
public final class EngineProbe
{
    /** The message prefix of the skeleton's refusal. */
    public static final String NOT_BUILT_MESSAGE = "the engine is not built yet";

    private EngineProbe()
    {
    }

    /** @return null when a store opens and closes, else why the engine is not built yet. */
    public static String notBuiltReason()
    {
        final Path dir = BenchDirs.create("probe");
        try (LogStore store = LogStore.open(StoreConfig.builder(dir).build()))
        {
            return store == null ? "LogStore.open returned null" : null;
        }
        catch (final UnsupportedOperationException ex)
        {
            if (ex.getMessage() != null && ex.getMessage().startsWith(NOT_BUILT_MESSAGE))
            {
                return ex.getMessage();
            }
            throw ex;
        }
        finally
        {
            BenchDirs.delete(dir);
        }
    }
}
