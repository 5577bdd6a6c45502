package io.directlog.storage.internal;

import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;

/**
 * Placeholder while the engine is being built (issue 3).
 */
public final class StoreEngine
{
    private StoreEngine()
    {
    }

    /**
     * @param config the store's settings.
     * @return never, yet.
     */
    public static LogStore open(final StoreConfig config)
    {
        throw new UnsupportedOperationException("the engine is not built yet: " + config.directory());
    }
}
