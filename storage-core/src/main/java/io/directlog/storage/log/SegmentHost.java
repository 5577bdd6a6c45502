package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Path;

import io.directlog.storage.cache.CachePage;
import io.directlog.storage.spi.BlockFile;

/**
 * What a segment needs from its log.
 * <p>
 * Implementations are thread-safe.
 */
public interface SegmentHost
{
    /** @return the active segment's sequence number. */
    long activeSequence();

    /**
     * @param offset an offset.
     * @return true when a declared consumer's position is below it.
     */
    boolean hasConsumerBefore(long offset);

    /**
     * @param path a segment file.
     * @return a read descriptor.
     * @throws IOException when it cannot be opened.
     */
    BlockFile openForRead(Path path) throws IOException;

    /**
     * A retired page lost its last reader.
     *
     * @param page the page to free.
     */
    void freeRetiredPage(CachePage page);
}
