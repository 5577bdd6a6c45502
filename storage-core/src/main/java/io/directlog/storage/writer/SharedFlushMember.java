package io.directlog.storage.writer;

import io.directlog.storage.spi.BlockFile;

/**
 * A log waiting for a DSYNC flush in its writer's duty cycle, as the writer's {@link SharedFlush} sees it. Every
 * method runs on the writer thread, in the same duty cycle as the log's {@link LogWriterAgent#joinSharedFlush}.
 */
public interface SharedFlushMember
{
    /**
     * Writes what the log copied through its plain O_DIRECT descriptor, acknowledging nothing.
     *
     * @return the file written (a candidate for the device flush), or null when the write failed: the log has
     * failed itself and its appends, and the flush does not cover it.
     */
    BlockFile writeForSharedFlush();

    /**
     * The device flush after {@link #writeForSharedFlush()} ended.
     *
     * @param failure null when it succeeded (the log's write is durable: acknowledge), else what it threw (the log
     *                fail-stops with it).
     */
    void onSharedFlush(Throwable failure);

    /** No other log of the device flushes in this cycle: flush as a log alone does (one O_DSYNC write). */
    void flushAlone();
}
