package io.directlog.cli.bench;

import java.nio.file.Path;

import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;

/**
 * Opens the engine for a scenario, telling "the engine is not built yet" (a placeholder that throws
 * UnsupportedOperationException) apart from a real failure.
 * <p>
 * Stateless; thread-safe.
 */
final class EngineStores
{
    static final String NOT_BUILT = "engine not built yet";
    /** The log every engine scenario appends to. */
    static final String LOG_NAME = "bench";

    private EngineStores()
    {
    }

    /**
     * @param directory    the store's directory.
     * @param memoryBudget bytes of cache pages.
     * @return the open store.
     * @throws ScenarioUnavailableException when this build has no engine yet.
     */
    static LogStore open(final Path directory, final long memoryBudget) throws ScenarioUnavailableException
    {
        try
        {
            return LogStore.open(StoreConfig.builder(directory).memoryBudget(memoryBudget).build());
        }
        catch (final UnsupportedOperationException ex)
        {
            throw new ScenarioUnavailableException(NOT_BUILT);
        }
    }
}
